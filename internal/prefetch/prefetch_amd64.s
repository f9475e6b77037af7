#include "textflag.h"

// func Range(b []byte)
TEXT ·Range(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ b_base+0(FP), AX
	MOVQ b_len+8(FP), CX
	TESTQ CX, CX
	JEQ done
	ADDQ AX, CX       // CX: the end of b
	ANDQ $~63, AX     // from the start of the first line
loop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, CX
	JCS loop
done:
	RET

// func Words(w []uint64)
TEXT ·Words(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ w_base+0(FP), AX
	MOVQ w_len+8(FP), CX
	TESTQ CX, CX
	JEQ done
	LEAQ (AX)(CX*8), CX // CX: the end of w
	ANDQ $~63, AX
loop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, CX
	JCS loop
done:
	RET
