package persist

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/hotkv/hotkv/internal/keyspace"
)

// Both files start with an 8-byte magic, a little-endian uint32 version and
// the CRC-32C of those 12 bytes.
const (
	SnapshotMagic = "HOTKVSNP"
	LogMagic      = "HOTKVAOF"
	// Version 2 added snapshot aux blocks; version 1 files still load.
	Version    = 2
	headerSize = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// AppendHeader appends a file header with the given magic.
func AppendHeader(dst []byte, magic string) []byte {
	start := len(dst)
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint32(dst, Version)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// FormatError is a file that cannot be loaded: what is wrong and the offset
// of the first bad byte (the start of the block or record holding it).
type FormatError struct {
	Offset int64
	Err    error
}

func (e *FormatError) Error() string { return fmt.Sprintf("at offset %d: %v", e.Offset, e.Err) }
func (e *FormatError) Unwrap() error { return e.Err }

// readHeader checks the header and returns the magic it found.
func readHeader(r io.Reader) (string, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", &FormatError{0, fmt.Errorf("%w: short header", ErrCorrupt)}
	}
	magic := string(h[:8])
	if magic != SnapshotMagic && magic != LogMagic {
		return "", &FormatError{0, fmt.Errorf("%w: not a HotKV file (magic %q)", ErrCorrupt, h[:8])}
	}
	if crc32.Checksum(h[:12], castagnoli) != binary.LittleEndian.Uint32(h[12:]) {
		return "", &FormatError{0, fmt.Errorf("%w: header checksum", ErrCorrupt)}
	}
	if v := binary.LittleEndian.Uint32(h[8:]); v < 1 || v > Version {
		return "", &FormatError{8, fmt.Errorf("unsupported format version %d (this build reads %d)", v, Version)}
	}
	return magic, nil
}

// Snapshot blocks: type byte, uint32 payload length, payload, CRC-32C of
// type, length and payload. A keys block holds keys of one database (one
// shard's worth, in any order relative to other blocks); the end block
// closes the file and counts what came before, so a file cut after a whole
// block is still detected.
//
// An aux block holds server-wide state that is not keys (the named vector
// indexes, the AI layer's registry): a kind byte, then that state's own
// encoding. A reader refuses a kind it does not know rather than drop data.
const (
	blockKeys = 'K'
	blockAux  = 'X'
	blockEnd  = 'E'
	blockHead = 5
	// maxBlock bounds what a loader allocates for one block.
	maxBlock = 1 << 31
)

// KeysBlock builds one keys block at the end of a buffer.
type KeysBlock struct {
	e     Enc
	start int
	Keys  int
}

// BeginKeys starts a keys block for database db at the end of dst.
func BeginKeys(dst []byte, db int) *KeysBlock {
	k := &KeysBlock{e: Enc{dst}, start: len(dst)}
	k.e.B = append(k.e.B, blockKeys, 0, 0, 0, 0)
	k.e.Uvarint(uint64(db))
	return k
}

// Add appends one key.
func (k *KeysBlock) Add(key string, en *keyspace.Entry) error {
	if err := EncodeEntry(&k.e, key, en); err != nil {
		return err
	}
	k.Keys++
	return nil
}

// Finish seals the block and returns the buffer.
func (k *KeysBlock) Finish() []byte { return seal(k.e.B, k.start) }

func seal(b []byte, start int) []byte {
	binary.LittleEndian.PutUint32(b[start+1:], uint32(len(b)-start-blockHead))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// AppendEnd appends the end block: the number of keys blocks and of keys.
func AppendEnd(dst []byte, blocks, keys int) []byte {
	start := len(dst)
	dst = append(dst, blockEnd, 0, 0, 0, 0)
	dst = binary.AppendUvarint(dst, uint64(blocks))
	dst = binary.AppendUvarint(dst, uint64(keys))
	return seal(dst, start)
}

// Aux block kinds.
const (
	AuxIndexes = 1 // named vector indexes (EncodeIndexes)
	AuxAI      = 2 // the AI layer's registry (ai.Registry.Save)
	AuxFuncs   = 3 // the function libraries, as FUNCTION DUMP's payload
)

// AppendAux appends an aux block of the given kind holding body.
func AppendAux(dst []byte, kind byte, body []byte) []byte {
	start := len(dst)
	dst = append(dst, blockAux, 0, 0, 0, 0, kind)
	dst = append(dst, body...)
	return seal(dst, start)
}

// LoadStats says what a snapshot held.
type LoadStats struct {
	Blocks, Keys int
	Bytes        int64
}

// ReadSnapshot reads a snapshot (header included), calling fn for every key;
// the key aliases the block's buffer. Any damage is a *FormatError: a
// snapshot is loaded whole or not at all.
func ReadSnapshot(r io.Reader, fn func(db int, key []byte, en *keyspace.Entry) error) (LoadStats, error) {
	keys := 0
	st, err := ReadBlocks(r, func(off int64, payload []byte) error {
		n, err := DecodeBlock(off, payload, fn)
		keys += n
		return err
	}, nil)
	if err == nil && keys != st.Keys {
		err = &FormatError{st.Bytes, fmt.Errorf("%w: end block counts %d keys, blocks hold %d", ErrCorrupt, st.Keys, keys)}
	}
	return st, err
}

// ReadBlocks reads a snapshot's blocks, checking the header, every
// checksum and the number of blocks, and hands each keys block's payload
// (fn may keep it: each has its own buffer) to fn with its offset, so
// blocks can be decoded in parallel, and each aux block's kind and body to
// aux (nil: aux blocks are checked and skipped). st.Keys is the count the
// end block states; the caller compares it with what DecodeBlock found.
func ReadBlocks(r io.Reader, fn func(off int64, payload []byte) error, aux func(off int64, kind byte, body []byte) error) (LoadStats, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var st LoadStats
	magic, err := readHeader(br)
	if err != nil {
		return st, err
	}
	if magic != SnapshotMagic {
		return st, &FormatError{0, fmt.Errorf("%w: an append-only log, not a snapshot", ErrCorrupt)}
	}
	off := int64(headerSize)
	for {
		var h [blockHead]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return st, &FormatError{off, fmt.Errorf("%w: file ends before the end block", ErrCorrupt)}
		}
		n := binary.LittleEndian.Uint32(h[1:])
		if n >= maxBlock || h[0] != blockKeys && h[0] != blockEnd && h[0] != blockAux {
			return st, &FormatError{off, fmt.Errorf("%w: bad block header", ErrCorrupt)}
		}
		buf, err := readN(br, nil, int(n)+4)
		if err != nil {
			return st, &FormatError{off, fmt.Errorf("%w: file ends inside a block", ErrCorrupt)}
		}
		crc := crc32.Update(crc32.Checksum(h[:], castagnoli), castagnoli, buf[:n])
		if crc != binary.LittleEndian.Uint32(buf[n:]) {
			return st, &FormatError{off, fmt.Errorf("%w: block checksum mismatch", ErrCorrupt)}
		}
		if h[0] == blockEnd {
			d := Dec{B: buf[:n]}
			blocks, keys := d.Uvarint(), d.Uvarint()
			if d.Err() != nil || d.Left() != 0 || blocks != uint64(st.Blocks) || keys > 1<<40 {
				return st, &FormatError{off, fmt.Errorf("%w: end block does not match the blocks read", ErrCorrupt)}
			}
			st.Keys = int(keys)
			st.Bytes = off + blockHead + int64(n) + 4
			return st, nil
		}
		switch {
		case h[0] == blockKeys:
			err = fn(off, buf[:n:n])
		case n == 0 || buf[0] != AuxIndexes && buf[0] != AuxAI && buf[0] != AuxFuncs:
			err = &FormatError{off, fmt.Errorf("%w: unknown aux block", ErrCorrupt)}
		case aux != nil:
			err = aux(off, buf[0], buf[1:n:n])
		}
		if err != nil {
			return st, err
		}
		st.Blocks++
		off += blockHead + int64(n) + 4
	}
}

// DecodeBlock decodes one keys block payload (from ReadBlocks), calling fn
// for every key, and returns how many it held.
func DecodeBlock(off int64, payload []byte, fn func(db int, key []byte, en *keyspace.Entry) error) (int, error) {
	d := Dec{B: payload}
	db := d.Uvarint()
	if d.Err() != nil || db > 1<<20 {
		return 0, &FormatError{off, fmt.Errorf("%w: bad database number", ErrCorrupt)}
	}
	n := 0
	for d.Left() > 0 {
		key, en, err := DecodeEntry(&d)
		if err != nil {
			return n, &FormatError{off, err}
		}
		if err := fn(int(db), key, en); err != nil {
			return n, &FormatError{off, err}
		}
		n++
	}
	return n, nil
}

// Append-only log records: uint32 payload length, CRC-32C of that length,
// CRC-32C of the payload, then the payload: one or more commands (a
// transaction's commands share a record, so a crash keeps all of it or
// none), each as database, time of execution (unix ms), argument count and
// arguments. Replaying a command at its recorded time makes relative
// expiries (EXPIRE 10, SET EX) land where they first did. The length has its
// own checksum so that a damaged length is told from a record cut short by a
// crash: only the latter may be dropped.
const recordHead = 12

// BeginRecord reserves a record header at the end of dst and returns the
// buffer and the record's start, for SealRecord.
func BeginRecord(dst []byte) ([]byte, int) {
	return append(dst, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), len(dst)
}

// AppendCommand appends one command to the record begun at the end of dst.
func AppendCommand(dst []byte, db int, now int64, args [][]byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(db))
	dst = binary.AppendVarint(dst, now)
	dst = binary.AppendUvarint(dst, uint64(len(args)))
	for _, a := range args {
		dst = binary.AppendUvarint(dst, uint64(len(a)))
		dst = append(dst, a...)
	}
	return dst
}

// SealRecord fills in the header of the record starting at start.
func SealRecord(dst []byte, start int) []byte {
	p := dst[start+recordHead:]
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(p)))
	binary.LittleEndian.PutUint32(dst[start+4:], crc32.Checksum(dst[start:start+4], castagnoli))
	binary.LittleEndian.PutUint32(dst[start+8:], crc32.Checksum(p, castagnoli))
	return dst
}

// LogCommand is one command read back from a log.
type LogCommand struct {
	DB   int
	Now  int64
	Args [][]byte // alias a buffer reused for the next record
}

// ErrTruncated is wrapped by the FormatError of a log whose last record is
// incomplete (a crash mid-write); Offset is where the whole records end.
var ErrTruncated = errors.New("truncated last record")

// ReadLog reads a log (header included) and calls fn with each record's
// commands. It returns the offset after the last whole record. A damaged
// last record that reaches the end of the file is a torn write and wraps
// ErrTruncated; damage followed by more data is corruption.
func ReadLog(r io.Reader, fn func(cmds []LogCommand) error) (int64, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := readHeader(br)
	if err != nil {
		return 0, err
	}
	if magic != LogMagic {
		return 0, &FormatError{0, fmt.Errorf("%w: a snapshot, not an append-only log", ErrCorrupt)}
	}
	off := int64(headerSize)
	var buf []byte
	var cmds []LogCommand
	var args [][]byte
	for {
		var h [recordHead]byte
		n, err := io.ReadFull(br, h[:])
		if n == 0 && err == io.EOF {
			return off, nil
		}
		if err != nil {
			return off, &FormatError{off, ErrTruncated}
		}
		size := binary.LittleEndian.Uint32(h[:])
		if crc32.Checksum(h[:4], castagnoli) != binary.LittleEndian.Uint32(h[4:]) || size >= maxBlock {
			return off, &FormatError{off, fmt.Errorf("%w: record header checksum mismatch", ErrCorrupt)}
		}
		if buf, err = readN(br, buf, int(size)); err != nil {
			return off, &FormatError{off, ErrTruncated}
		}
		if crc32.Checksum(buf, castagnoli) != binary.LittleEndian.Uint32(h[8:]) {
			return off, damaged(br, off, "record checksum mismatch")
		}
		cmds, args = cmds[:0], args[:0]
		d := Dec{B: buf}
		for d.Left() > 0 {
			db := d.Uvarint()
			c := LogCommand{DB: int(db & (1<<20 - 1)), Now: d.Varint()}
			argc := d.Count(1)
			if argc == 0 || db >= 1<<20 {
				d.fail("command header")
			}
			first := len(args)
			for range argc {
				args = append(args, d.Bytes())
			}
			if d.Err() != nil {
				return off, &FormatError{off, d.Err()}
			}
			c.Args = args[first:len(args):len(args)]
			cmds = append(cmds, c)
		}
		if len(cmds) == 0 {
			return off, &FormatError{off, fmt.Errorf("%w: empty record", ErrCorrupt)}
		}
		if err := fn(cmds); err != nil {
			return off, &FormatError{off, err}
		}
		off += recordHead + int64(size)
	}
}

// readN reads n bytes into buf (reused), growing it as the bytes arrive, so
// that a corrupt length makes a short read, not a huge allocation.
func readN(r io.Reader, buf []byte, n int) ([]byte, error) {
	if first := min(n, 1<<20); cap(buf) < first {
		buf = make([]byte, 0, first)
	}
	buf = buf[:0]
	for len(buf) < n {
		if len(buf) == cap(buf) {
			// Doubling (append grows large slices by only 1.25x, which
			// copies a large block many times over).
			nb := make([]byte, len(buf), min(n, 2*cap(buf)))
			buf = nb[:copy(nb, buf)]
		}
		m, err := io.ReadFull(r, buf[len(buf):min(n, cap(buf))])
		buf = buf[:len(buf)+m]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// damaged tells a torn last record (nothing after it) from corruption.
func damaged(br *bufio.Reader, off int64, what string) error {
	if _, err := br.Peek(1); err == io.EOF {
		return &FormatError{off, fmt.Errorf("%w (%s)", ErrTruncated, what)}
	}
	return &FormatError{off, fmt.Errorf("%w: %s", ErrCorrupt, what)}
}

// CheckFile verifies a snapshot or a log without loading it anywhere and
// describes what it found; err is the first problem, a *FormatError naming
// the offset.
func CheckFile(path string) (string, error) { return CheckKind(path, "") }

// CheckKind is CheckFile for a file that must be of one kind, SnapshotMagic
// or LogMagic ("": either), as a manifest's base and logs must be: a log
// where a snapshot belongs fails as loading it would.
func CheckKind(path, magic string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if magic == "" {
		if magic, err = readHeader(f); err != nil {
			return "", err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return "", err
		}
	}
	if magic == SnapshotMagic {
		st, err := ReadSnapshot(f, func(int, []byte, *keyspace.Entry) error { return nil })
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("snapshot OK: %d keys in %d blocks, %d bytes", st.Keys, st.Blocks, st.Bytes), nil
	}
	records, commands := 0, 0
	end, err := ReadLog(f, func(c []LogCommand) error { records++; commands += len(c); return nil })
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("append-only log OK: %d commands in %d records, %d bytes", commands, records, end), nil
}

// FixLog cuts a damaged log at the start of its first bad record, as
// redis-check-aof --fix does, after copying it whole to path+".bak". It
// returns what was kept (whole records and their bytes, header included) and
// how many bytes were dropped; a sound log is left alone (dropped 0).
// Snapshots are refused: one is loaded whole or not at all.
func FixLog(path string) (records int, kept, dropped int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	magic, err := readHeader(f)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%w; the header is damaged, nothing to keep", err)
	}
	if magic != LogMagic {
		return 0, 0, 0, errors.New("a snapshot cannot be fixed (it is loaded whole or not at all); restore it from a backup")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, 0, 0, err
	}
	kept, err = ReadLog(f, func([]LogCommand) error { records++; return nil })
	if err == nil {
		return records, kept, 0, nil
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err == nil {
		err = backup(f, path+".bak")
	}
	if err == nil {
		err = f.Truncate(kept)
	}
	if err == nil {
		err = f.Sync()
	}
	return records, kept, size - kept, err
}

// backup copies f whole to path, durably, before f is cut.
func backup(f *os.File, path string) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	b, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(b, f)
	if err == nil {
		err = b.Sync()
	}
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	return err
}
