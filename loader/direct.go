package loader

import (
	"os"
	"syscall"
	"unsafe"
)

// directBlock is the size of one O_DIRECT write.
const directBlock = 1 << 20

// fileWriter writes a data file in aligned blocks with O_DIRECT, which skips
// the copy into the page cache (most of the kernel's share of generating
// files). Where the file system refuses O_DIRECT
// (tmpfs), it writes normally. The unaligned tail goes after O_DIRECT is
// switched off.
type fileWriter struct {
	f      *os.File
	buf    []byte // aligned, directBlock long
	n      int
	direct bool
}

func newFileWriter(f *os.File) *fileWriter {
	w := &fileWriter{f: f, buf: alignedBlock()}
	fd := int(f.Fd())
	flags, err := fcntl(fd, syscall.F_GETFL, 0)
	if err == nil {
		if _, err := fcntl(fd, syscall.F_SETFL, flags|syscall.O_DIRECT); err == nil {
			w.direct = true
		}
	}
	return w
}

func alignedBlock() []byte {
	b := make([]byte, directBlock+4096)
	off := int(uintptr(unsafe.Pointer(&b[0])) & 4095)
	if off != 0 {
		off = 4096 - off
	}
	return b[off : off+directBlock]
}

func fcntl(fd, cmd, arg int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), uintptr(arg))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func (w *fileWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		c := copy(w.buf[w.n:], p)
		w.n += c
		p = p[c:]
		if w.n == len(w.buf) {
			if _, err := w.f.Write(w.buf); err != nil {
				return total - len(p), err
			}
			w.n = 0
		}
	}
	return total, nil
}

// Close writes the tail and closes the file.
func (w *fileWriter) Close() error {
	if w.n > 0 {
		if w.direct {
			fd := int(w.f.Fd())
			if flags, err := fcntl(fd, syscall.F_GETFL, 0); err == nil {
				fcntl(fd, syscall.F_SETFL, flags&^syscall.O_DIRECT)
			}
		}
		if _, err := w.f.Write(w.buf[:w.n]); err != nil {
			w.f.Close()
			return err
		}
		w.n = 0
	}
	if err := w.f.Sync(); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}
