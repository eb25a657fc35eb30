package dataset

import "math/rand/v2"

// Uniform returns n seeded vectors with coordinates uniform in [-1, 1).
func Uniform(n, dim int, seed uint64) Vectors {
	r := rand.New(rand.NewPCG(seed, uint64(dim)))
	v := Vectors{Dim: dim, Data: make([]float32, n*dim)}
	for i := range v.Data {
		v.Data[i] = 2*r.Float32() - 1
	}
	return v
}

// Clustered returns n seeded vectors around 1000 Gaussian centres (spread
// 0.5 per dimension around unit-variance centres), a stand-in for
// embeddings when no data file is at hand.
func Clustered(n, dim int, seed uint64) Vectors {
	r := rand.New(rand.NewPCG(seed, uint64(dim)))
	centres := make([]float32, 1000*dim)
	for i := range centres {
		centres[i] = float32(r.NormFloat64())
	}
	v := Vectors{Dim: dim, Data: make([]float32, n*dim)}
	for i := range n {
		c := r.IntN(1000)
		for j := range dim {
			v.Data[i*dim+j] = centres[c*dim+j] + 0.5*float32(r.NormFloat64())
		}
	}
	return v
}
