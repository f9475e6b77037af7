package bench

import (
	"math"
	"slices"
	"time"
)

// Summary describes a distribution of latencies in microseconds.
type Summary struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_us"`
	P95  float64 `json:"p95_us"`
	P99  float64 `json:"p99_us"`
	Mean float64 `json:"mean_us"`
}

// Summarize computes the nearest-rank percentiles and the mean of xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Summary{N: len(s), P50: Percentile(s, 50), P95: Percentile(s, 95), P99: Percentile(s, 99), Mean: sum / float64(len(s))}
}

// Percentile is the nearest-rank p-th percentile of sorted xs: the smallest
// value with at least p% of the values at or below it.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(k, 1), len(sorted))-1]
}

// median of a few durations, in microseconds.
func medianMicros(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m.Nanoseconds()) / 1e3
}

func medianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}
