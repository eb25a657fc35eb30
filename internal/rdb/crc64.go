package rdb

import "encoding/binary"

// CRC64 is Redis's checksum (crc64.c): the Jones polynomial, reflected
// (0x95ac9329ac4bc9b5), initial value 0 and no final xor. A DUMP payload
// ends with the CRC of everything before it, little endian.
func CRC64(crc uint64, b []byte) uint64 {
	// Eight bytes a step (slicing-by-8), then the rest a byte at a time.
	for len(b) >= 8 {
		crc ^= binary.LittleEndian.Uint64(b)
		crc = crcTables[7][byte(crc)] ^ crcTables[6][byte(crc>>8)] ^ crcTables[5][byte(crc>>16)] ^
			crcTables[4][byte(crc>>24)] ^ crcTables[3][byte(crc>>32)] ^ crcTables[2][byte(crc>>40)] ^
			crcTables[1][byte(crc>>48)] ^ crcTable[byte(crc>>56)]
		b = b[8:]
	}
	for _, c := range b {
		crc = crcTable[byte(crc)^c] ^ crc>>8
	}
	return crc
}

var crcTable = func() (t [256]uint64) {
	const poly = 0x95ac9329ac4bc9b5
	for i := range t {
		c := uint64(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crcTables[k][i] is the CRC of byte i followed by k zero bytes.
var crcTables = func() (t [8][256]uint64) {
	t[0] = crcTable
	for k := 1; k < 8; k++ {
		for i := range 256 {
			c := t[k-1][i]
			t[k][i] = c>>8 ^ crcTable[byte(c)]
		}
	}
	return t
}()
