package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Bandwidth puts the matcher's achieved throughput beside what the machine
// can stream, measured in the same run.
type Bandwidth struct {
	// ProbeBytes is the size of the cold probe's two buffers together.
	ProbeBytes int64 `json:"probe_bytes"`
	// ColdGBps is a plain streaming AND of two buffers larger than the
	// last-level cache, one thread: the memory bandwidth a row scan can get.
	ColdGBps float64 `json:"probe_cold_gb_s"`
	// HotGBps is the same loop over buffers that fit in L2.
	HotGBps float64 `json:"probe_hot_gb_s"`
	// AchievedGBps is the signature match stage's row bytes touched divided
	// by its time (planning included) in ranked searches, where every
	// candidate is listed, single-threaded, over all queries.
	AchievedGBps float64 `json:"achieved_gb_s"`
}

// andStream ANDs a and b word by word, 64 bytes at a time, as the matcher
// does, and returns the OR of the results.
func andStream(a, b []uint64) uint64 {
	var acc uint64
	n := min(len(a), len(b)) &^ 7
	for i := 0; i < n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		acc |= x[0]&y[0] | x[1]&y[1] | x[2]&y[2] | x[3]&y[3] | x[4]&y[4] | x[5]&y[5] | x[6]&y[6] | x[7]&y[7]
	}
	return acc
}

// streamGBps measures andStream over two buffers of bytes/2 each, repeating
// it until at least minTime has passed per sample, and returns the median of
// samples in GB/s (bytes read per second).
func streamGBps(bytes int64, samples int, minTime time.Duration) float64 {
	words := int(bytes / 16)
	a := make([]uint64, words)
	b := make([]uint64, words)
	for i := range a {
		a[i] = uint64(i) * 0x9e3779b97f4a7c15
		b[i] = ^a[i] >> 1
	}
	sink := andStream(a, b) // touch every page once
	var rates []float64
	for s := 0; s < samples; s++ {
		start := time.Now()
		reps := 0
		for reps == 0 || time.Since(start) < minTime {
			sink |= andStream(a, b)
			reps++
		}
		el := time.Since(start).Seconds()
		rates = append(rates, float64(reps)*float64(16*words)/el/1e9)
	}
	runtime.KeepAlive(sink) // the loop's result is used, so it is not optimized away
	return medianFloat(rates)
}

// ProbeBandwidth measures the cold (buffers of max(4×LLC, 256 MiB)) and hot
// (256 KiB) streaming AND throughput of one thread.
func ProbeBandwidth(llc int64) Bandwidth {
	cold := max(4*llc, 256<<20)
	return Bandwidth{
		ProbeBytes: cold,
		ColdGBps:   streamGBps(cold, 5, 200*time.Millisecond),
		HotGBps:    streamGBps(256<<10, 5, 50*time.Millisecond),
	}
}

// cacheSizes reads the L2 and last-level cache sizes of CPU 0 from sysfs
// (0 when unknown).
func cacheSizes() (l2, llc int64) {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	best := 0
	for _, d := range dirs {
		lv, err1 := os.ReadFile(filepath.Join(d, "level"))
		sz, err2 := os.ReadFile(filepath.Join(d, "size"))
		ty, _ := os.ReadFile(filepath.Join(d, "type"))
		if err1 != nil || err2 != nil || strings.TrimSpace(string(ty)) == "Instruction" {
			continue
		}
		level, _ := strconv.Atoi(strings.TrimSpace(string(lv)))
		size := parseSize(strings.TrimSpace(string(sz)))
		if level == 2 {
			l2 = size
		}
		if level >= best {
			best, llc = level, size
		}
	}
	return l2, llc
}

func parseSize(s string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n * mult
}
