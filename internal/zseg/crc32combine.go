package zseg

// The CRC-32 of a concatenation from the CRCs of its parts, as zlib's
// crc32_combine does it since 1.2.12: CRC(A‖B) = CRC(A)·x^(8·len(B)) ⊕
// CRC(B) in GF(2)[x] modulo the IEEE polynomial, the power found by
// multiplying the precomputed squares x^(2^k). Polynomials are held
// reflected, as hash/crc32 holds them: bit 31 is x^0.

// crc32Poly is the IEEE polynomial, reflected (hash/crc32.IEEE).
const crc32Poly = 0xedb88320

// x2nModP holds x^(2^k) modulo the polynomial for k = 0…31; x^(2^k) for
// larger k repeats these with period 32 (the multiplicative order divides
// 2^32 - 1).
var x2nModP = func() (t [32]uint32) {
	p := uint32(1) << 30 // x^1
	for k := range t {
		t[k] = p
		p = multModP(p, p)
	}
	return t
}()

// multModP returns a·b modulo the polynomial.
func multModP(a, b uint32) uint32 {
	var prod uint32
	for m := uint32(1) << 31; a != 0; m >>= 1 {
		if a&m != 0 {
			prod ^= b
			a ^= m
		}
		if b&1 != 0 {
			b = b>>1 ^ crc32Poly
		} else {
			b >>= 1
		}
	}
	return prod
}

// xPow8n returns x^(8n) modulo the polynomial.
func xPow8n(n uint64) uint32 {
	p := uint32(1) << 31 // x^0
	for k := 3; n != 0; n, k = n>>1, k+1 {
		if n&1 != 0 {
			p = multModP(x2nModP[k&31], p)
		}
	}
	return p
}

// crc32Combine returns the IEEE CRC-32 of A‖B given crcA = CRC(A),
// crcB = CRC(B) and lenB = len(B).
func crc32Combine(crcA, crcB uint32, lenB uint64) uint32 {
	return multModP(xPow8n(lenB), crcA) ^ crcB
}
