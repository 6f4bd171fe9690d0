package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// maxInputFile bounds a file a command reads whole (a test, the template): far above any real
// one, low enough that a wrong path cannot exhaust memory.
const maxInputFile = 16 << 20

// openInput opens a file a command was given to read. Only a regular file is read: a device
// such as /dev/zero never ends, a FIFO waits for a writer, a directory holds no content. The
// open does not block (opening a FIFO otherwise waits for a writer) and the mode is checked on
// the open file, so what is checked is what is read. A limit above zero refuses a larger file,
// naming what the file is for ("test file").
func openInput(path, what string, limit int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	switch {
	case err != nil:
	case !st.Mode().IsRegular():
		err = fmt.Errorf("%s is %s, not a regular file", path, fileKind(st.Mode()))
	case limit > 0 && st.Size() > limit:
		err = fmt.Errorf("%s: %s is over the %s limit for a %s", path, sizeText(st.Size()), sizeText(limit), what)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readInput reads the whole of a file a command was given, at most maxInputFile bytes of it.
func readInput(path, what string) ([]byte, error) {
	f, err := openInput(path, what, maxInputFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The limit holds for a file that grows after the check, too.
	b, err := io.ReadAll(io.LimitReader(f, maxInputFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > maxInputFile {
		return nil, fmt.Errorf("%s grew over the %s limit for a %s while it was read", path, sizeText(maxInputFile), what)
	}
	return b, nil
}

// fileKind names what a file that is not a regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// sizeText writes a size in MiB when it is a whole number of them, else in bytes, so that a
// size just over a limit never reads as the limit itself.
func sizeText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
