package impact

import (
	"math/rand/v2"
	"testing"
)

// TestRatioByte checks that RatioByte is the smallest byte whose ratio
// bounds tf/dl, and that Add keeps the largest of both bytes.
func TestRatioByte(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100000; i++ {
		dl := 1 + r.IntN(1<<20)
		tf := 1 + r.IntN(dl)
		q := RatioByte(tf, dl)
		ratio := float64(tf) / float64(dl)
		if Ratio(q) < ratio {
			t.Fatalf("tf %d dl %d: Ratio(%d) = %g is below %g", tf, dl, q, Ratio(q), ratio)
		}
		if q > 0 && Ratio(q-1) >= ratio {
			t.Fatalf("tf %d dl %d: byte %d is not the smallest", tf, dl, q)
		}
	}
	imp := make([]byte, 2)
	Add(imp, 3, 100)
	Add(imp, 300, 100000)
	Add(imp, 1, 2)
	if imp[0] != Max || imp[1] != RatioByte(1, 2) {
		t.Fatalf("Add kept %v, want [%d %d]", imp, Max, RatioByte(1, 2))
	}
}
