//go:build amd64 && !purego

#include "textflag.h"

// All kernels take (a, b []T): a's length is the element count, b is at
// least that long (the Go wrappers reslice it). AVX-512 versions finish with
// one masked step (masked-off lanes are neither loaded nor faulted); AVX2
// versions finish with a scalar loop.

// func dotAVX512(a, b []float32) float32
TEXT ·dotAVX512(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	CMPQ CX, $64
	JB   dot512_16

dot512_64:
	VMOVUPS     (SI), Z4
	VMOVUPS     64(SI), Z5
	VMOVUPS     128(SI), Z6
	VMOVUPS     192(SI), Z7
	VFMADD231PS (DI), Z4, Z0
	VFMADD231PS 64(DI), Z5, Z1
	VFMADD231PS 128(DI), Z6, Z2
	VFMADD231PS 192(DI), Z7, Z3
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $64, CX
	CMPQ        CX, $64
	JAE         dot512_64

dot512_16:
	CMPQ        CX, $16
	JB          dot512_tail
	VMOVUPS     (SI), Z4
	VFMADD231PS (DI), Z4, Z0
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         dot512_16

dot512_tail:
	TESTQ       CX, CX
	JZ          dot512_reduce
	MOVL        $1, AX
	SHLL        CX, AX
	SUBL        $1, AX
	KMOVW       AX, K1
	VMOVUPS.Z   (SI), K1, Z4
	VMOVUPS.Z   (DI), K1, Z5
	VFMADD231PS Z5, Z4, Z1

dot512_reduce:
	VADDPS        Z1, Z0, Z0
	VADDPS        Z3, Z2, Z2
	VADDPS        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPS        X1, X0, X0
	VPERMILPS     $0x4e, X0, X1
	VADDPS        X1, X0, X0
	VPERMILPS     $0xb1, X0, X1
	VADDSS        X1, X0, X0
	VMOVSS        X0, ret+48(FP)
	VZEROUPPER
	RET

// func l2sqAVX512(a, b []float32) float32
TEXT ·l2sqAVX512(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	CMPQ CX, $64
	JB   l2512_16

l2512_64:
	VMOVUPS     (SI), Z4
	VMOVUPS     64(SI), Z5
	VMOVUPS     128(SI), Z6
	VMOVUPS     192(SI), Z7
	VSUBPS      (DI), Z4, Z4
	VSUBPS      64(DI), Z5, Z5
	VSUBPS      128(DI), Z6, Z6
	VSUBPS      192(DI), Z7, Z7
	VFMADD231PS Z4, Z4, Z0
	VFMADD231PS Z5, Z5, Z1
	VFMADD231PS Z6, Z6, Z2
	VFMADD231PS Z7, Z7, Z3
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $64, CX
	CMPQ        CX, $64
	JAE         l2512_64

l2512_16:
	CMPQ        CX, $16
	JB          l2512_tail
	VMOVUPS     (SI), Z4
	VSUBPS      (DI), Z4, Z4
	VFMADD231PS Z4, Z4, Z0
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         l2512_16

l2512_tail:
	TESTQ       CX, CX
	JZ          l2512_reduce
	MOVL        $1, AX
	SHLL        CX, AX
	SUBL        $1, AX
	KMOVW       AX, K1
	VMOVUPS.Z   (SI), K1, Z4
	VMOVUPS.Z   (DI), K1, Z5
	VSUBPS      Z5, Z4, Z4
	VFMADD231PS Z4, Z4, Z1

l2512_reduce:
	VADDPS        Z1, Z0, Z0
	VADDPS        Z3, Z2, Z2
	VADDPS        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPS        X1, X0, X0
	VPERMILPS     $0x4e, X0, X1
	VADDPS        X1, X0, X0
	VPERMILPS     $0xb1, X0, X1
	VADDSS        X1, X0, X0
	VMOVSS        X0, ret+48(FP)
	VZEROUPPER
	RET

// func dotAVX2(a, b []float32) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	CMPQ CX, $32
	JB   dot2_8

dot2_32:
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         dot2_32

dot2_8:
	CMPQ        CX, $8
	JB          dot2_reduce
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         dot2_8

dot2_reduce:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VADDSS       X1, X0, X0
	TESTQ        CX, CX
	JZ           dot2_done

dot2_scalar:
	VMOVSS      (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ        $4, SI
	ADDQ        $4, DI
	DECQ        CX
	JNZ         dot2_scalar

dot2_done:
	VMOVSS X0, ret+48(FP)
	VZEROUPPER
	RET

// func l2sqAVX2(a, b []float32) float32
TEXT ·l2sqAVX2(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	CMPQ CX, $32
	JB   l22_8

l22_32:
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VSUBPS      (DI), Y4, Y4
	VSUBPS      32(DI), Y5, Y5
	VSUBPS      64(DI), Y6, Y6
	VSUBPS      96(DI), Y7, Y7
	VFMADD231PS Y4, Y4, Y0
	VFMADD231PS Y5, Y5, Y1
	VFMADD231PS Y6, Y6, Y2
	VFMADD231PS Y7, Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         l22_32

l22_8:
	CMPQ        CX, $8
	JB          l22_reduce
	VMOVUPS     (SI), Y4
	VSUBPS      (DI), Y4, Y4
	VFMADD231PS Y4, Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         l22_8

l22_reduce:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VADDSS       X1, X0, X0
	TESTQ        CX, CX
	JZ           l22_done

l22_scalar:
	VMOVSS      (SI), X1
	VSUBSS      (DI), X1, X1
	VFMADD231SS X1, X1, X0
	ADDQ        $4, SI
	ADDQ        $4, DI
	DECQ        CX
	JNZ         l22_scalar

l22_done:
	VMOVSS X0, ret+48(FP)
	VZEROUPPER
	RET

// int8 dot products widen to int16 (VPMOVSXBW) and multiply-add pairs into
// int32 lanes (VPMADDWD), which is exact for int8 inputs.

// func dotInt8AVX512(a, b []int8) int32
TEXT ·dotInt8AVX512(SB), NOSPLIT, $0-52
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   b_base+24(FP), DI
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	CMPQ   CX, $64
	JB     i8512_32

i8512_64:
	VPMOVSXBW (SI), Z2
	VPMOVSXBW (DI), Z3
	VPMOVSXBW 32(SI), Z4
	VPMOVSXBW 32(DI), Z5
	VPMADDWD  Z3, Z2, Z2
	VPMADDWD  Z5, Z4, Z4
	VPADDD    Z2, Z0, Z0
	VPADDD    Z4, Z1, Z1
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $64, CX
	CMPQ      CX, $64
	JAE       i8512_64

i8512_32:
	CMPQ      CX, $32
	JB        i8512_tail
	VPMOVSXBW (SI), Z2
	VPMOVSXBW (DI), Z3
	VPMADDWD  Z3, Z2, Z2
	VPADDD    Z2, Z0, Z0
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $32, CX

i8512_tail:
	TESTQ       CX, CX
	JZ          i8512_reduce
	MOVL        $1, AX
	SHLL        CX, AX
	SUBL        $1, AX
	KMOVD       AX, K1
	VMOVDQU8.Z  (SI), K1, Y2
	VMOVDQU8.Z  (DI), K1, Y3
	VPMOVSXBW   Y2, Z2
	VPMOVSXBW   Y3, Z3
	VPMADDWD    Z3, Z2, Z2
	VPADDD      Z2, Z1, Z1

i8512_reduce:
	VPADDD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4e, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xb1, X0, X1
	VPADDD        X1, X0, X0
	VMOVD         X0, AX
	MOVL          AX, ret+48(FP)
	VZEROUPPER
	RET

// func dotInt8AVX2(a, b []int8) int32
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-52
	MOVQ  a_base+0(FP), SI
	MOVQ  a_len+8(FP), CX
	MOVQ  b_base+24(FP), DI
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	CMPQ  CX, $32
	JB    i82_16

i82_32:
	VPMOVSXBW (SI), Y2
	VPMOVSXBW (DI), Y3
	VPMOVSXBW 16(SI), Y4
	VPMOVSXBW 16(DI), Y5
	VPMADDWD  Y3, Y2, Y2
	VPMADDWD  Y5, Y4, Y4
	VPADDD    Y2, Y0, Y0
	VPADDD    Y4, Y1, Y1
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $32, CX
	CMPQ      CX, $32
	JAE       i82_32

i82_16:
	CMPQ      CX, $16
	JB        i82_reduce
	VPMOVSXBW (SI), Y2
	VPMOVSXBW (DI), Y3
	VPMADDWD  Y3, Y2, Y2
	VPADDD    Y2, Y0, Y0
	ADDQ      $16, SI
	ADDQ      $16, DI
	SUBQ      $16, CX

i82_reduce:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, R8
	TESTQ        CX, CX
	JZ           i82_done

i82_scalar:
	MOVBLSX (SI), AX
	MOVBLSX (DI), DX
	IMULL   DX, AX
	ADDL    AX, R8
	INCQ    SI
	INCQ    DI
	DECQ    CX
	JNZ     i82_scalar

i82_done:
	MOVL R8, ret+48(FP)
	VZEROUPPER
	RET

// func hammingAVX512(a, b []uint64) int
TEXT ·hammingAVX512(SB), NOSPLIT, $0-56
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   b_base+24(FP), DI
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	CMPQ   CX, $16
	JB     ham512_8

ham512_16:
	VMOVDQU64 (SI), Z2
	VMOVDQU64 64(SI), Z3
	VPXORQ    (DI), Z2, Z2
	VPXORQ    64(DI), Z3, Z3
	VPOPCNTQ  Z2, Z2
	VPOPCNTQ  Z3, Z3
	VPADDQ    Z2, Z0, Z0
	VPADDQ    Z3, Z1, Z1
	ADDQ      $128, SI
	ADDQ      $128, DI
	SUBQ      $16, CX
	CMPQ      CX, $16
	JAE       ham512_16

ham512_8:
	CMPQ      CX, $8
	JB        ham512_tail
	VMOVDQU64 (SI), Z2
	VPXORQ    (DI), Z2, Z2
	VPOPCNTQ  Z2, Z2
	VPADDQ    Z2, Z0, Z0
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $8, CX

ham512_tail:
	TESTQ       CX, CX
	JZ          ham512_reduce
	MOVL        $1, AX
	SHLL        CX, AX
	SUBL        $1, AX
	KMOVW       AX, K1
	VMOVDQU64.Z (SI), K1, Z2
	VMOVDQU64.Z (DI), K1, Z3
	VPXORQ      Z3, Z2, Z2
	VPOPCNTQ    Z2, Z2
	VPADDQ      Z2, Z1, Z1

ham512_reduce:
	VPADDQ        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDQ        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDQ        X1, X0, X0
	VPSHUFD       $0x4e, X0, X1
	VPADDQ        X1, X0, X0
	VMOVQ         X0, AX
	MOVQ          AX, ret+48(FP)
	VZEROUPPER
	RET

// Four-at-a-time kernels: one query against four vectors, so that each
// chunk of the query is loaded once and the call overhead is shared.

// func dot4AVX512(q *float32, n int, a, b, c, d *float32) (ra, rb, rc, rd float32)
TEXT ·dot4AVX512(SB), NOSPLIT, $0-64
	MOVQ q+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ a+16(FP), R8
	MOVQ b+24(FP), R9
	MOVQ c+32(FP), R10
	MOVQ d+40(FP), R11
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	XORQ   AX, AX

d4512_16:
	CMPQ        CX, $16
	JB          d4512_tail
	VMOVUPS     (SI)(AX*4), Z0
	VFMADD231PS (R8)(AX*4), Z0, Z1
	VFMADD231PS (R9)(AX*4), Z0, Z2
	VFMADD231PS (R10)(AX*4), Z0, Z3
	VFMADD231PS (R11)(AX*4), Z0, Z4
	ADDQ        $16, AX
	SUBQ        $16, CX
	JMP         d4512_16

d4512_tail:
	TESTQ       CX, CX
	JZ          d4512_reduce
	MOVL        $1, DX
	SHLL        CX, DX
	SUBL        $1, DX
	KMOVW       DX, K1
	VMOVUPS.Z   (SI)(AX*4), K1, Z0
	VMOVUPS.Z   (R8)(AX*4), K1, Z5
	VFMADD231PS Z5, Z0, Z1
	VMOVUPS.Z   (R9)(AX*4), K1, Z5
	VFMADD231PS Z5, Z0, Z2
	VMOVUPS.Z   (R10)(AX*4), K1, Z5
	VFMADD231PS Z5, Z0, Z3
	VMOVUPS.Z   (R11)(AX*4), K1, Z5
	VFMADD231PS Z5, Z0, Z4

d4512_reduce:
	// Fold 512 -> 256 -> 128 bits per accumulator, then transpose-add the
	// four 128-bit sums so that lane i holds accumulator i's total.
	VEXTRACTF64X4 $1, Z1, Y5
	VADDPS        Y5, Y1, Y1
	VEXTRACTF64X4 $1, Z2, Y5
	VADDPS        Y5, Y2, Y2
	VEXTRACTF64X4 $1, Z3, Y5
	VADDPS        Y5, Y3, Y3
	VEXTRACTF64X4 $1, Z4, Y5
	VADDPS        Y5, Y4, Y4
	VEXTRACTF128  $1, Y1, X5
	VADDPS        X5, X1, X1
	VEXTRACTF128  $1, Y2, X5
	VADDPS        X5, X2, X2
	VEXTRACTF128  $1, Y3, X5
	VADDPS        X5, X3, X3
	VEXTRACTF128  $1, Y4, X5
	VADDPS        X5, X4, X4
	VHADDPS       X2, X1, X1
	VHADDPS       X4, X3, X3
	VHADDPS       X3, X1, X1
	VMOVUPS       X1, ra+48(FP)
	VZEROUPPER
	RET

// func dot4AVX2(q *float32, n int, a, b, c, d *float32) (ra, rb, rc, rd float32)
TEXT ·dot4AVX2(SB), NOSPLIT, $0-64
	MOVQ q+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ a+16(FP), R8
	MOVQ b+24(FP), R9
	MOVQ c+32(FP), R10
	MOVQ d+40(FP), R11
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	XORQ   AX, AX

d42_8:
	CMPQ        CX, $8
	JB          d42_reduce
	VMOVUPS     (SI)(AX*4), Y0
	VFMADD231PS (R8)(AX*4), Y0, Y1
	VFMADD231PS (R9)(AX*4), Y0, Y2
	VFMADD231PS (R10)(AX*4), Y0, Y3
	VFMADD231PS (R11)(AX*4), Y0, Y4
	ADDQ        $8, AX
	SUBQ        $8, CX
	JMP         d42_8

d42_reduce:
	VEXTRACTF128 $1, Y1, X5
	VADDPS       X5, X1, X1
	VEXTRACTF128 $1, Y2, X5
	VADDPS       X5, X2, X2
	VEXTRACTF128 $1, Y3, X5
	VADDPS       X5, X3, X3
	VEXTRACTF128 $1, Y4, X5
	VADDPS       X5, X4, X4
	VHADDPS      X2, X1, X1
	VHADDPS      X4, X3, X3
	VHADDPS      X3, X1, X1
	TESTQ        CX, CX
	JZ           d42_done

d42_scalar:
	// Lane i of X1 is accumulator i: gather the four vectors' elements
	// into one register and multiply-add with the broadcast query element.
	VBROADCASTSS (SI)(AX*4), X0
	VMOVSS       (R8)(AX*4), X5
	VINSERTPS    $0x10, (R9)(AX*4), X5, X5
	VINSERTPS    $0x20, (R10)(AX*4), X5, X5
	VINSERTPS    $0x30, (R11)(AX*4), X5, X5
	VFMADD231PS  X5, X0, X1
	INCQ         AX
	DECQ         CX
	JNZ          d42_scalar

d42_done:
	VMOVUPS X1, ra+48(FP)
	VZEROUPPER
	RET
