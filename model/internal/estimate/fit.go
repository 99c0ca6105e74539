package estimate

import "math"

// Defaults for RLSOptions. They are tuned for the step model step = a + b·context (docs/architecture.md):
// x is the batch's context in tokens (0..200k), y the decode step in
// seconds (0.02..2), one sample every ~2 s.
const (
	// DefaultRLSLambda is the forgetting factor. With directional
	// forgetting (see RLS) each direction of θ forgets only when a sample
	// measures it, so the memory is at least 1/(1−λ) = 50 samples and
	// longer for the intercept, which few samples inform. Measured with
	// contexts uniform in 200..30k: a doubled slope is within 10 % after
	// ≤ 150 samples (5 min at one sample per 2 s), a and b are both within
	// 5 % after ≤ 1,300; steady-state error 0.7 % (a), 0.3 % (b) rms.
	DefaultRLSLambda = 0.98
	// DefaultRLSXScale divides x before fitting (tokens → thousands of
	// tokens) so that both columns of the regressor are O(1..200).
	DefaultRLSXScale = 1000
	// DefaultRLSHuber is Huber's c in robust σ units: 95 % efficiency under
	// Gaussian noise while a gross outlier contributes at most c·σ.
	DefaultRLSHuber = 1.345
	// DefaultRLSPrior is the information of the initial guess θ = 0, in
	// units of one typical sample: negligible against the data, but it
	// bounds P in a direction the data never excite (see RLS).
	DefaultRLSPrior = 1e-3
	// DefaultRLSScaleLambda smooths the robust residual scale: a memory of
	// 20 samples, and growth bounded to ×1.107 per sample (see RLS).
	DefaultRLSScaleLambda = 0.95
)

// Robust scale recursion (see RLS).
const (
	rlsScaleWarmup      = 5      // scale samples before Huber weights apply
	rlsScaleClip        = 2.5    // |innovation| is clipped at 2.5 σ̂
	rlsScaleConsistency = 1.2596 // 1/E[min(|Z|, 2.5)], Z ~ N(0, 1)
	rlsScaleFloor       = 1e-6   // σ̂ ≥ 1e-6 (of the step, or seconds): no 0/0
)

// RLSOptions configure NewRLS. Zero values select the defaults above.
type RLSOptions struct {
	Lambda      float64 // forgetting factor in (0, 1]
	XScale      float64 // internal unit of x
	Huber       float64 // Huber threshold in robust σ
	Prior       float64 // information of the initial guess, in samples
	ScaleLambda float64 // smoothing of the robust scale, in (0, 1)
	// AbsoluteNoise selects ordinary (unweighted) least squares. By default
	// every sample is weighted by 1/ŷ², ŷ the a-priori prediction: decode
	// step jitter is multiplicative (a few % of the step), so without this
	// the long-context samples, whose noise is largest in seconds, swamp
	// the intercept. With 3 % multiplicative noise and contexts uniform in
	// 200..30k, 50 samples give the intercept to 3.1 % rms weighted, 5.3 %
	// with AbsoluteNoise (batch OLS: 6.0 %).
	AbsoluteNoise bool
}

// RLS is a robust recursive least-squares fit of y = a + b·x with
// forgetting, for the rolling step model step = a + b·context.
//
// Robustness: a recursive least M-estimate (after Zou, Chan & Ng, "A
// recursive least M-estimate (RLM) adaptive filter for robust filtering in
// impulse noise", IEEE SPL 7(11), 2000, with a different scale). The a-priori innovation is standardised by
// its predicted spread, σ̂·sqrt(1+φᵀPφ/λ), and a Huber weight
// w = min(1, c/|z|) enters the weighted recursion, so one wild sample moves
// the fit no more than a c·σ̂ residual would. σ̂ is a running robust scale:
// σ̂ ← σ̂ + (1−λσ)·(1.2596·min(|innovation|, 2.5σ̂) − σ̂), the
// stochastic-approximation form of an M-estimate of scale with a clipped
// score (Huber & Ronchetti, Robust Statistics, 2nd ed., 2009, ch. 5),
// consistent at the Gaussian. Clipping bounds its
// growth to ×1.107 per sample, so a burst of 15 samples at 10× inflates it
// only ×4.6 and the burst stays down-weighted (measured against a clean
// twin: a and b move < 1 % for 5 such samples in a row, 2.5 % for 10, 5 %
// for 15; 30 in a row look like a regime change to any forgetting fit). A
// genuine regime change persists, σ̂ catches up within a few dozen
// samples, and the weights return to 1 while the fit follows. Gross
// contamination of 20 % of all samples breaks it: the Theil–Sen check is
// there for that.
//
// Weighting: see RLSOptions.AbsoluteNoise. The fit runs on the rows
// scaled by g = 1/ŷ; R, P and σ̂ live in that space (σ̂ is then a
// fraction of the step).
//
// Wind-up guard: plain exponential forgetting divides P by λ every step, so
// when x stays put the unexcited direction of P grows like λ^-n (10⁴ samples
// at λ = 0.99 is e^100): the slope learnt earlier is forgotten, the estimate
// wanders with the noise and the first sample at a new x makes it jump.
// RLS uses directional forgetting instead (Kulhavý, "Restricted exponential
// forgetting in real-time identification", Automatica 23(5), 1987; in the
// form of Bittanti, Bolzern & Campi, "Convergence and exponential
// convergence of identification algorithms with directional forgetting
// factor", Automatica 26(5), 1990): only the information about φᵀθ, the
// combination the new sample measures, is discounted by λ,
//
//	R ← R + (w − (1−λ)/ρ)·φφᵀ,  ρ = φᵀR⁻¹φ,  on R = P⁻¹,
//
// so the information along φ is bounded by w/(1−λ) and the information in
// directions the data no longer excite is kept, not inflated. When the
// context sits still the fixed cost at that context keeps tracking while
// the slope learnt while it moved is retained, P stays bounded, and there
// is nothing to blow up when it moves again. With two parameters R itself
// is kept and inverted in closed form each step.
//
// RLS is a value type with no pointers: a Series can embed it and copy it.
// The zero value is not usable; call NewRLS.
type RLS struct {
	lambda, xscale, huber, prior, lamS float64
	relative                           bool

	a, b          float64 // θ; b per xscale units of x
	r00, r01, r11 float64 // information matrix R = P⁻¹ (transformed space)
	level         float64 // EW mean of |y|, floor for ŷ in the weight
	n             int

	sigma float64 // robust scale of the standardised innovations
	ns    int     // scale updates so far

	sw, my, syy, see float64 // EW sums for R²
	lastZ            float64
}

// NewRLS returns an estimator with the given options (zero fields → defaults).
func NewRLS(o RLSOptions) RLS {
	r := RLS{lambda: o.Lambda, xscale: o.XScale, huber: o.Huber, prior: o.Prior,
		lamS: o.ScaleLambda, relative: !o.AbsoluteNoise}
	if !(r.lambda > 0 && r.lambda <= 1) {
		r.lambda = DefaultRLSLambda
	}
	if !(r.xscale > 0) {
		r.xscale = DefaultRLSXScale
	}
	if !(r.huber > 0) {
		r.huber = DefaultRLSHuber
	}
	if !(r.prior > 0) {
		r.prior = DefaultRLSPrior
	}
	if !(r.lamS > 0 && r.lamS < 1) {
		r.lamS = DefaultRLSScaleLambda
	}
	return r
}

// Update adds one sample and returns its standardised a-priori residual z:
// (y − ŷ) over its predicted spread, positive when y is above the model
// (a step slower than predicted). z is 0 until the robust scale exists
// (about 8 samples). Non-finite input is ignored and returns 0.
func (r *RLS) Update(x, y float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
		return 0
	}
	u := x / r.xscale
	pred := r.a + r.b*u
	if r.n == 0 {
		r.level = math.Abs(y)
	}
	g := 1.0 // square root of the noise weight
	if r.relative {
		ref := pred // until two samples have identified θ, use the level
		if r.n < 2 {
			ref = r.level
		}
		g = 1 / max(ref, 0.25*r.level, 1e-9)
	}
	lam := r.lambda
	f0, f1 := g, g*u // transformed regressor φ'
	if r.n == 0 {
		pr := r.prior * g * g // prior information: ε typical samples
		r.r00, r.r01, r.r11 = pr, 0, pr
	}
	det := r.r00*r.r11 - r.r01*r.r01
	// k = P·φ' and ρ = φ'ᵀ·P·φ' with P = R⁻¹ before this sample.
	k0 := (r.r11*f0 - r.r01*f1) / det
	k1 := (r.r00*f1 - r.r01*f0) / det
	rho := f0*k0 + f1*k1
	if !(det > 0) || !(rho > 0) || math.IsInf(rho, 0) {
		return 0 // cannot happen with R positive definite; never corrupt θ
	}
	e := g * (y - pred)
	// Directional forgetting divides the variance of φ'ᵀθ by λ.
	std := e / math.Sqrt(1+rho/lam)

	w, z := 1.0, 0.0
	if r.ns > rlsScaleWarmup {
		z = std / r.sigma
		if az := math.Abs(z); az > r.huber {
			w = r.huber / az
		}
	}
	// The first two samples identify θ exactly; their innovations say
	// nothing about the noise.
	if r.n >= 2 {
		r.updateScale(math.Abs(std))
	}
	// R ← R − (1−λ)·φ'φ'ᵀ/ρ + w·φ'φ'ᵀ and, by Sherman–Morrison,
	// θ ← θ + P·φ'·w·e/(λ + w·ρ).
	c := w - (1-lam)/rho
	gain := w / (lam + w*rho)
	r.a += k0 * gain * e
	r.b += k1 * gain * e
	n00, n01, n11 := r.r00+c*f0*f0, r.r01+c*f0*f1, r.r11+c*f1*f1
	if n00*n11-n01*n01 > 0 && n00 > 0 {
		r.r00, r.r01, r.r11 = n00, n01, n11
	}

	// Exponentially weighted R² in the original units, with the Huber
	// weights (West's weighted incremental variance).
	post := y - (r.a + r.b*u)
	r.sw = lam*r.sw + w
	d := y - r.my
	r.my += w / r.sw * d
	r.syy = lam*r.syy + w*d*(y-r.my)
	r.see = lam*r.see + w*post*post
	r.level = lam*r.level + (1-lam)*math.Abs(y)
	r.n++
	r.lastZ = z
	return z
}

// updateScale feeds |standardised innovation| v to the robust scale.
func (r *RLS) updateScale(v float64) {
	r.ns++
	alpha := max(1-r.lamS, 1/float64(r.ns)) // plain mean while warming up
	k := 1.2533                             // 1/E|Z|
	if r.ns > rlsScaleWarmup {
		v = min(v, rlsScaleClip*r.sigma)
		k = rlsScaleConsistency
	}
	r.sigma = max(r.sigma+alpha*(k*v-r.sigma), rlsScaleFloor)
}

// Coef returns the intercept a (units of y) and the slope b (y per unit of x).
func (r *RLS) Coef() (a, b float64) { return r.a, r.b / r.xscale }

// Predict returns a + b·x.
func (r *RLS) Predict(x float64) float64 { return r.a + r.b*x/r.xscale }

// N is the number of samples accepted so far.
func (r *RLS) N() int { return r.n }

// LastZ is the value the last Update returned.
func (r *RLS) LastZ() float64 { return r.lastZ }

// ResidualScale is the robust scale σ̂ of the standardised innovations: a
// fraction of the step (e.g. 0.03 for 3 % jitter) with the default relative
// weighting, units of y with AbsoluteNoise. 0 before the third sample, a
// plain mean of the first innovations until the eighth.
func (r *RLS) ResidualScale() float64 { return r.sigma }

// R2 is the exponentially weighted coefficient of determination (same
// forgetting factor, Huber-weighted) of the a-posteriori fit. It is 0 with
// fewer than 3 samples or no variance in y, and may be negative.
func (r *RLS) R2() float64 {
	if r.n < 3 || !(r.syy > 0) {
		return 0
	}
	return 1 - r.see/r.syy
}

// StdErr returns approximate standard errors of a and b (σ̂·sqrt(P_ii)).
// A large b error means x has not moved enough to pin the slope down. They
// are conservative: about 1.6× the observed rms error in simulation.
func (r *RLS) StdErr() (sa, sb float64) {
	det := r.r00*r.r11 - r.r01*r.r01
	if r.n == 0 || !(det > 0) {
		return math.Inf(1), math.Inf(1)
	}
	s := r.sigma
	return s * math.Sqrt(r.r11/det), s * math.Sqrt(r.r00/det) / r.xscale
}
