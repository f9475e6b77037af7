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

