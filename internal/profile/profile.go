// Package profile writes pprof profiles of the whole command, for the
// hidden --cpu-profile and --mem-profile options that benchmarks use.
package profile

import (
	"os"
	"runtime/pprof"

	"github.com/spf13/pflag"
)

// Flags are where the profiles go ("" for none).
type Flags struct{ cpu, mem string }

// Register adds the hidden options to fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.cpu, "cpu-profile", "", "write a CPU profile (pprof) here")
	fs.MarkHidden("cpu-profile")
	fs.StringVar(&f.mem, "mem-profile", "", "write an allocation profile (pprof) here at exit")
	fs.MarkHidden("mem-profile")
}

// Start starts the CPU profile.
func (f *Flags) Start() error {
	if f.cpu == "" {
		return nil
	}
	out, err := os.Create(f.cpu)
	if err != nil {
		return err
	}
	return pprof.StartCPUProfile(out)
}

// Stop ends the CPU profile and writes the allocation profile.
func (f *Flags) Stop() error {
	pprof.StopCPUProfile()
	if f.mem == "" {
		return nil
	}
	out, err := os.Create(f.mem)
	if err != nil {
		return err
	}
	defer out.Close()
	return pprof.Lookup("allocs").WriteTo(out, 0)
}
