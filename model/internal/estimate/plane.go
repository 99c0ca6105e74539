package estimate

import "math"

// Plane is a least-squares fit of y = a + b·x + c·u with exponential forgetting, kept as the
// nine sums of its normal equations: the step model where a second regressor matters (the
// draft tokens a verify step checks, model/request.go). Three unknowns are solved by Cramer's
// rule: a linear-algebra library for a 3×3 system would be the daemon's largest dependency for
// ten lines.
type Plane struct {
	lambda                       float64
	count                        int
	n, sx, su, sy, sxx, suu, sxu float64
	sxy, suy                     float64
}

// NewPlane returns an empty fit that weighs the k-th latest sample by lambda^k (0 < lambda ≤ 1).
func NewPlane(lambda float64) Plane { return Plane{lambda: lambda} }

// Add adds one sample.
func (p *Plane) Add(x, u, y float64) {
	l := p.lambda
	p.count++
	p.n, p.sx, p.su, p.sy = l*p.n+1, l*p.sx+x, l*p.su+u, l*p.sy+y
	p.sxx, p.suu, p.sxu = l*p.sxx+x*x, l*p.suu+u*u, l*p.sxu+x*u
	p.sxy, p.suy = l*p.sxy+x*y, l*p.suy+u*y
}

// N is the number of samples added.
func (p *Plane) N() int { return p.count }

// USpread is the weighted standard deviation of u: below a token or so, c is noise.
func (p *Plane) USpread() float64 {
	if p.n == 0 {
		return 0
	}
	m := p.su / p.n
	return math.Sqrt(math.Max(0, p.suu/p.n-m*m))
}

// Fit solves for a, b and c; ok is false while the system is singular or nearly so.
func (p *Plane) Fit() (a, b, c float64, ok bool) {
	// centred sums: the raw ones lose the small terms at 200k tokens of context
	if p.n < 3 {
		return 0, 0, 0, false
	}
	mx, mu, my := p.sx/p.n, p.su/p.n, p.sy/p.n
	cxx, cuu, cxu := p.sxx-p.n*mx*mx, p.suu-p.n*mu*mu, p.sxu-p.n*mx*mu
	cxy, cuy := p.sxy-p.n*mx*my, p.suy-p.n*mu*my
	det := cxx*cuu - cxu*cxu
	if !(det > 1e-9*cxx*cuu) || cxx <= 0 || cuu <= 0 {
		return 0, 0, 0, false
	}
	b = (cxy*cuu - cuy*cxu) / det
	c = (cuy*cxx - cxy*cxu) / det
	return my - b*mx - c*mu, b, c, true
}
