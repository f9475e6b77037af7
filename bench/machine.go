package bench

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Machine describes where a run happened.
type Machine struct {
	CPU         string `json:"cpu"`
	Cores       int    `json:"cores"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
	MemoryBytes int64  `json:"memory_bytes"`
	L2Bytes     int64  `json:"l2_bytes"`
	LLCBytes    int64  `json:"llc_bytes"`
	Go          string `json:"go"`
	OS          string `json:"os"`
	Kernel      string `json:"kernel,omitempty"`
	// Revision is the source revision bitsieve was built from ("+dirty"
	// when the working tree had changes), when the build recorded it.
	Revision string `json:"revision,omitempty"`
}

// ThisMachine describes the machine the process runs on.
func ThisMachine() Machine {
	m := Machine{
		Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
	}
	m.L2Bytes, m.LLCBytes = cacheSizes()
	if bi, ok := debug.ReadBuildInfo(); ok {
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				m.Revision = s.Value[:min(12, len(s.Value))]
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty && m.Revision != "" {
			m.Revision += "+dirty"
		}
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if kb := procField("/proc/meminfo", "MemTotal"); kb > 0 {
		m.MemoryBytes = kb << 10
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// loadAverage is /proc/loadavg's first three fields ("" when unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}

// procField reads a "Name: N kB" field of a /proc status file (0 if absent).
func procField(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != name {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			return 0
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		return n
	}
	return 0
}

// ResetPeakRSS restarts the kernel's peak resident set size of this process
// (Linux: /proc/self/clear_refs), so PeakRSS measures what follows. It
// reports whether the reset worked.
func ResetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// PeakRSS is the process's peak resident set size in bytes (VmHWM) since it
// started or since ResetPeakRSS; mapped index files count as they are read.
// 0 when unknown.
func PeakRSS() int64 { return procField("/proc/self/status", "VmHWM") << 10 }
