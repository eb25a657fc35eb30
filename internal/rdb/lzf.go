package rdb

// lzfDecompress expands LZF data (liblzf's format, which Redis uses for
// strings longer than 20 bytes when rdbcompression is on) into exactly n
// bytes; ok is false for malformed input or any other length.
//
// Each chunk starts with a control byte: below 32 it is a literal run of
// ctrl+1 bytes; otherwise its top 3 bits are a back-reference length - 2
// (7: one more byte adds to it), its low 5 bits and the next byte an
// offset - 1 back into the output.
func lzfDecompress(in []byte, n int) (out []byte, ok bool) {
	out = make([]byte, 0, n)
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < 1<<5 {
			run := ctrl + 1
			if i+run > len(in) || len(out)+run > n {
				return nil, false
			}
			out = append(out, in[i:i+run]...)
			i += run
			continue
		}
		length := ctrl >> 5
		if length == 7 {
			if i >= len(in) {
				return nil, false
			}
			length += int(in[i])
			i++
		}
		if i >= len(in) {
			return nil, false
		}
		ref := len(out) - (ctrl&0x1f)<<8 - int(in[i]) - 1
		i++
		length += 2
		if ref < 0 || len(out)+length > n {
			return nil, false
		}
		for j := range length { // byte by byte: the reference may overlap the output
			out = append(out, out[ref+j])
		}
	}
	return out, len(out) == n
}
