#include "textflag.h"

// func Range(b []byte)
TEXT ·Range(SB), NOSPLIT|NOFRAME, $0-24
	MOVD b_base+0(FP), R0
	MOVD b_len+8(FP), R1
	CBZ R1, done
	ADD R0, R1, R1    // R1: the end of b
	AND $~63, R0, R0  // from the start of the first line
loop:
	PRFM (R0), PLDL1KEEP
	ADD $64, R0, R0
	CMP R1, R0
	BLO loop
done:
	RET

