package estimate

import "math"

// Bilinear is a least-squares fit of y = a + b·x + c·u + d·u·x with exponential forgetting,
// kept as the sums of its normal equations: the step model where the draft tokens a verify
// step checks (u) vary, as n-gram drafting's do (model/request.go). d is what each extra token
// pays per token of context: batched attention costs less per token than a one-token step's.
// The 3×3 centred system is solved by Cramer's rule on the correlation matrix: a linear-algebra
// library would be the daemon's largest dependency for thirty lines.
type Bilinear struct {
	lambda float64
	count  int
	n, sy  float64
	s      [3]float64    // Σ z for the regressors z = (x, u, u·x)
	szz    [3][3]float64 // Σ z·zᵀ
	szy    [3]float64    // Σ z·y
	syy    float64
}

// BilinearFit is a solved Bilinear: y = A + B·x + C·u + D·u·x.
type BilinearFit struct {
	A, B, C, D float64
	R2         float64
}

// Predict is the fit's y at x and u.
func (f BilinearFit) Predict(x, u float64) float64 { return f.A + f.B*x + f.C*u + f.D*u*x }

// NewBilinear returns an empty fit that weighs the k-th latest sample by lambda^k (0 < lambda ≤ 1).
func NewBilinear(lambda float64) Bilinear { return Bilinear{lambda: lambda} }

// Add adds one sample.
func (p *Bilinear) Add(x, u, y float64) {
	l := p.lambda
	z := [3]float64{x, u, u * x}
	p.count++
	p.n, p.sy, p.syy = l*p.n+1, l*p.sy+y, l*p.syy+y*y
	for i := range z {
		p.s[i] = l*p.s[i] + z[i]
		p.szy[i] = l*p.szy[i] + z[i]*y
		for j := range z {
			p.szz[i][j] = l*p.szz[i][j] + z[i]*z[j]
		}
	}
}

// N is the number of samples added.
func (p *Bilinear) N() int { return p.count }

// USpread is the weighted standard deviation of u: below a token or so, c and d are noise.
func (p *Bilinear) USpread() float64 {
	if p.n == 0 {
		return 0
	}
	m := p.s[1] / p.n
	return math.Sqrt(math.Max(0, p.szz[1][1]/p.n-m*m))
}

// minDet is the smallest determinant of the regressors' correlation matrix that is solved:
// below it two of x, u and u·x move together and their split is noise.
const minDet = 1e-6

// Fit solves for the coefficients; ok is false while the system is singular or nearly so.
func (p *Bilinear) Fit() (f BilinearFit, ok bool) {
	if p.n < 5 {
		return f, false
	}
	// Centred sums (the raw ones lose the small terms at 200k tokens of context), scaled to
	// correlations so that one threshold serves every unit.
	var m, sd, cy [3]float64
	var r [3][3]float64
	my := p.sy / p.n
	for i := range m {
		m[i] = p.s[i] / p.n
	}
	for i := range m {
		v := p.szz[i][i] - p.n*m[i]*m[i]
		if !(v > 0) {
			return f, false
		}
		sd[i] = math.Sqrt(v)
	}
	for i := range m {
		cy[i] = (p.szy[i] - p.n*m[i]*my) / sd[i]
		for j := range m {
			r[i][j] = (p.szz[i][j] - p.n*m[i]*m[j]) / (sd[i] * sd[j])
		}
	}
	det := det3(r)
	if !(det > minDet) {
		return f, false
	}
	var beta [3]float64
	for k := range beta {
		rk := r
		for i := range rk {
			rk[i][k] = cy[i]
		}
		beta[k] = det3(rk) / det / sd[k]
	}
	f.B, f.C, f.D = beta[0], beta[1], beta[2]
	f.A = my - f.B*m[0] - f.C*m[1] - f.D*m[2]
	if tot := p.syy - p.n*my*my; tot > 0 {
		var explained float64
		for i := range beta {
			explained += beta[i] * cy[i] * sd[i]
		}
		f.R2 = explained / tot
	}
	return f, true
}

func det3(m [3][3]float64) float64 {
	return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
		m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
		m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
}
