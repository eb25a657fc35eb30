package rdb

// CRC64 is Redis's checksum (crc64.c): the Jones polynomial, reflected
// (0x95ac9329ac4bc9b5), initial value 0 and no final xor. A DUMP payload
// ends with the CRC of everything before it, little endian.
func CRC64(crc uint64, b []byte) uint64 {
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
