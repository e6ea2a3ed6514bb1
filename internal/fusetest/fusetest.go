// Package fusetest is a FUSE file system for tests that must see a read
// block in the kernel (issue 32, docs/hardware.md, "A read that never
// returns"): a small tree held in memory, served over /dev/fuse by the test
// process itself, in which chosen operations are never answered. A thread
// of another process that reads there waits in the kernel's
// request_wait_answer, which SIGKILL does not end once the request was
// read by the server, until the server answers or goes away (Close): what
// a wedged GPU does to a reader of its sysfs.
//
// Standard library only: /dev/fuse opened, mount(2) with fd=N, and the
// FUSE protocol (linux/fuse.h, 7.x) as far as lookups, attributes, open,
// read, readdir and readlink go; every other request is answered ENOSYS.
// Mounting needs CAP_SYS_ADMIN and /dev/fuse (Available says why not).
package fusetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Node is one entry of a served tree.
type Node struct {
	// Mode is the entry's type: 0 (a regular file), fs.ModeDir or
	// fs.ModeSymlink. Directories the paths imply need no entry.
	Mode fs.FileMode
	// Data is a file's content or a link's target.
	Data string
	// Hang names the operation on this entry that is never answered:
	// "lookup" (its name, looked up in its directory), "read" (a read of
	// the file, a listing of the directory, a readlink of the link);
	// "" answers everything.
	Hang string
}

// Tree is the served file system: slash-separated paths relative to the
// mount point ("kfd/kfd/topology/nodes/1/properties").
type Tree map[string]Node

// Server is a mounted Tree.
type Server struct {
	dir   string
	dev   *os.File
	paths []string // by node id - 1; "" is the root
	nodes map[string]Node
	ids   map[string]uint64
	done  chan struct{}

	mu    sync.Mutex
	hung  []string // "op path" of each request left unanswered
	heard chan struct{}
}

// Available says why a FUSE file system cannot be mounted here ("" when it
// can be tried): /dev/fuse missing, or not root.
func Available() string {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Sprintf("/dev/fuse: %v (modprobe fuse, or run the container with --device /dev/fuse)", err)
	}
	if os.Geteuid() != 0 {
		return "mounting a FUSE file system needs root (CAP_SYS_ADMIN)"
	}
	return ""
}

// Mount serves t at the directory dir until Close.
func Mount(dir string, t Tree) (*Server, error) {
	s := &Server{dir: dir, nodes: map[string]Node{"": {Mode: fs.ModeDir}}, ids: map[string]uint64{},
		done: make(chan struct{}), heard: make(chan struct{}, 64)}
	for p, n := range t {
		p = strings.Trim(p, "/")
		s.nodes[p] = n
		for d := p; strings.Contains(d, "/"); {
			d = d[:strings.LastIndexByte(d, '/')]
			if _, ok := s.nodes[d]; !ok {
				s.nodes[d] = Node{Mode: fs.ModeDir}
			}
		}
	}
	s.paths = append([]string{""}, slices.Sorted(func(yield func(string) bool) {
		for p := range s.nodes {
			if p != "" && !yield(p) {
				return
			}
		}
	})...)
	for i, p := range s.paths {
		s.ids[p] = uint64(i + 1)
	}
	// Non-blocking, so that the runtime's poller waits for requests and
	// Close ends the wait (a read blocked in the kernel would hold the
	// device open, and the connection with it).
	fd, err := syscall.Open("/dev/fuse", syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: "/dev/fuse", Err: err}
	}
	opts := fmt.Sprintf("fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd)
	if err := syscall.Mount("aorta-fusetest", dir, "fuse", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("mount -t fuse -o %s %s: %w", opts, dir, err)
	}
	s.dev = os.NewFile(uintptr(fd), "/dev/fuse")
	go s.serve()
	return s, nil
}

// Close ends the connection (every request left unanswered fails, so the
// processes waiting on them go on) and unmounts.
func (s *Server) Close() error {
	err := s.dev.Close()
	<-s.done
	if uerr := syscall.Unmount(s.dir, syscall.MNT_DETACH); uerr != nil && err == nil {
		err = fmt.Errorf("umount %s: %w", s.dir, uerr)
	}
	return err
}

// Hung is every request left unanswered so far, "op path" each ("read
// kfd/kfd/topology/nodes/1/properties").
func (s *Server) Hung() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hung)
}

// Heard is told of each request left unanswered, as it comes.
func (s *Server) Heard() <-chan struct{} { return s.heard }

// FUSE opcodes and sizes (linux/fuse.h).
const (
	opLookup      = 1
	opForget      = 2
	opGetattr     = 3
	opReadlink    = 5
	opOpen        = 14
	opRead        = 15
	opRelease     = 18
	opFlush       = 25
	opInit        = 26
	opOpendir     = 27
	opReaddir     = 28
	opReleasedir  = 29
	opInterrupt   = 36
	opBatchForget = 42

	inHeader    = 40
	outHeader   = 16
	attrSize    = 88
	directIO    = 1 // FOPEN_DIRECT_IO: every read reaches the server
	maxWrite    = 4096
	readBufSize = 1<<20 + 4096
)

var le = binary.LittleEndian

func (s *Server) serve() {
	defer close(s.done)
	buf := make([]byte, readBufSize)
	for {
		n, err := s.dev.Read(buf)
		if err != nil {
			if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.ENOENT) {
				continue // ENOENT: a request interrupted before it was read
			}
			return // closed, or the file system was unmounted (ENODEV)
		}
		if n < inHeader {
			continue
		}
		req := buf[:n]
		op, unique, node := le.Uint32(req[4:]), le.Uint64(req[8:]), le.Uint64(req[16:])
		if out, errno, answer := s.answer(op, node, req[inHeader:]); answer {
			s.reply(unique, errno, out)
		}
	}
}

// answer is the reply to one request: its payload or an errno; answer is
// false for requests that take none (FORGET, INTERRUPT) and for those
// that hang.
func (s *Server) answer(op uint32, node uint64, in []byte) (out []byte, errno syscall.Errno, answer bool) {
	switch op {
	case opForget, opBatchForget, opInterrupt:
		return nil, 0, false
	case opInit:
		return initOut(in), 0, true
	}
	if node == 0 || node > uint64(len(s.paths)) {
		return nil, syscall.ENOENT, true
	}
	p := s.paths[node-1]
	n := s.nodes[p]
	switch op {
	case opLookup:
		name := string(in[:max(0, slices.Index(in, 0))])
		child := strings.TrimPrefix(p+"/"+name, "/")
		cn, ok := s.nodes[child]
		if !ok {
			return nil, syscall.ENOENT, true
		}
		if cn.Hang == "lookup" {
			return nil, 0, s.hang("lookup", child)
		}
		out = make([]byte, 40+attrSize)
		le.PutUint64(out[0:], s.ids[child]) // nodeid; generation, timeouts 0
		s.attr(out[40:], child)
		return out, 0, true
	case opGetattr:
		out = make([]byte, 16+attrSize)
		s.attr(out[16:], p)
		return out, 0, true
	case opOpen, opOpendir:
		out = make([]byte, 16)
		if op == opOpen {
			le.PutUint32(out[8:], directIO)
		}
		return out, 0, true
	case opRelease, opReleasedir, opFlush:
		return nil, 0, true
	case opRead, opReaddir, opReadlink:
		if n.Hang == "read" {
			return nil, 0, s.hang("read", p)
		}
		if op == opReadlink {
			return []byte(n.Data), 0, true
		}
		off, size := le.Uint64(in[8:]), int(le.Uint32(in[16:]))
		if op == opReaddir {
			return s.dirents(p, off, size), 0, true
		}
		data := n.Data[min(off, uint64(len(n.Data))):]
		return []byte(data[:min(len(data), size)]), 0, true
	}
	return nil, syscall.ENOSYS, true
}

func (s *Server) hang(op, p string) bool {
	s.mu.Lock()
	s.hung = append(s.hung, op+" "+p)
	s.mu.Unlock()
	select {
	case s.heard <- struct{}{}:
	default:
	}
	return false
}

// initOut is the reply to INIT: protocol 7.31 (or the kernel's, when
// older), no optional feature.
func initOut(in []byte) []byte {
	out := make([]byte, 64)
	minor := min(le.Uint32(in[4:]), 31)
	le.PutUint32(out[0:], 7)
	le.PutUint32(out[4:], minor)
	le.PutUint32(out[8:], le.Uint32(in[8:])) // max_readahead, as offered
	le.PutUint32(out[20:], maxWrite)
	return out
}

// attr fills a fuse_attr of the entry p.
func (s *Server) attr(b []byte, p string) {
	n := s.nodes[p]
	mode, nlink := uint32(syscall.S_IFREG|0o444), uint32(1)
	switch {
	case n.Mode.IsDir():
		mode, nlink = syscall.S_IFDIR|0o555, 2
	case n.Mode&fs.ModeSymlink != 0:
		mode = syscall.S_IFLNK | 0o777
	}
	le.PutUint64(b[0:], s.ids[p])            // ino
	le.PutUint64(b[8:], uint64(len(n.Data))) // size
	le.PutUint32(b[60:], mode)
	le.PutUint32(b[64:], nlink)
	le.PutUint32(b[80:], 4096) // blksize
}

// dirents is a READDIR reply: the entries of directory p from index off
// on, as many fuse_dirent records as fit in size bytes.
func (s *Server) dirents(p string, off uint64, size int) []byte {
	var out []byte
	var i uint64
	for _, c := range s.paths {
		if c == "" || strings.TrimSuffix(c[:max(strings.LastIndexByte(c, '/'), 0)], "/") != p {
			continue
		}
		if i++; i <= off {
			continue
		}
		name := c[strings.LastIndexByte(c, '/')+1:]
		rec := (24 + len(name) + 7) &^ 7
		if len(out)+rec > size {
			break
		}
		e := make([]byte, rec)
		le.PutUint64(e[0:], s.ids[c])
		le.PutUint64(e[8:], i) // the offset of the next entry
		le.PutUint32(e[16:], uint32(len(name)))
		le.PutUint32(e[20:], direntType(s.nodes[c].Mode))
		copy(e[24:], name)
		out = append(out, e...)
	}
	return out
}

func direntType(m fs.FileMode) uint32 {
	switch {
	case m.IsDir():
		return syscall.DT_DIR
	case m&fs.ModeSymlink != 0:
		return syscall.DT_LNK
	}
	return syscall.DT_REG
}

func (s *Server) reply(unique uint64, errno syscall.Errno, out []byte) {
	b := make([]byte, outHeader+len(out))
	le.PutUint32(b[0:], uint32(len(b)))
	le.PutUint32(b[4:], uint32(-int32(errno)))
	le.PutUint64(b[8:], unique)
	copy(b[outHeader:], out)
	s.dev.Write(b) // an error: the request was interrupted meanwhile
}
