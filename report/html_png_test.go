package report

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"slices"
	"testing"
)

func readPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return png.Decode(f)
}

// checkScreenshot fails unless the screenshot has the window's size and is a picture, not a
// blank page (a page that failed to render is one or two colours).
func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	img, err := readPNG(path)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot is %v, want %dx%d", b, w, h)
	}
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && len(seen) < 64; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}] = true
		}
	}
	if len(seen) < 64 {
		t.Errorf("the screenshot has only %d colours: blank page?", len(seen))
	}
}

// writeQuantized stores a screenshot as a 256-colour PNG: a page of flat colours and text
// loses nothing visible, and the file is a third of the size (docs/demo.png stays under
// 400 KB). The palette is the most frequent colours; the rest map to the nearest.
func writeQuantized(src, dst string) (int64, error) {
	img, err := readPNG(src)
	if err != nil {
		return 0, err
	}
	b := img.Bounds()
	rgba := func(x, y int) color.RGBA {
		r, g, bl, _ := img.At(x, y).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
	}
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[rgba(x, y)]++
		}
	}
	type freq struct {
		c color.RGBA
		n int
	}
	all := make([]freq, 0, len(count))
	for c, n := range count {
		all = append(all, freq{c, n})
	}
	slices.SortFunc(all, func(a, b freq) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return int(a.c.R)<<16 + int(a.c.G)<<8 + int(a.c.B) - (int(b.c.R)<<16 + int(b.c.G)<<8 + int(b.c.B))
	})
	pal := make(color.Palette, 0, 256)
	for _, f := range all[:min(256, len(all))] {
		pal = append(pal, f.c)
	}
	out := image.NewPaletted(b, pal)
	index := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := rgba(x, y)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.Pix[(y-b.Min.Y)*out.Stride+(x-b.Min.X)] = i
		}
	}
	f, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(f, out); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	st, err := os.Stat(dst)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
