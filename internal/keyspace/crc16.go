package keyspace

// crc16tab is CRC16-CCITT (XModem), the hash Redis Cluster uses for key slots.
var crc16tab = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crc16tab[byte(crc>>8)^c]
	}
	return crc
}

// Slot is the Redis Cluster hash slot of key (0..16383), honouring {hash tags},
// so that keys sharing a tag land in one shard now and one slot later.
func Slot(key []byte) int {
	for i, c := range key {
		if c == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j > i+1 {
						return int(crc16(key[i+1:j]) & 16383)
					}
					break
				}
			}
			break
		}
	}
	return int(crc16(key) & 16383)
}
