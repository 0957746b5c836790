"""benchmarks/sass_loop.py on a made-up kernel: the loop around the FFMA block, its shortest
iteration (the fast branch, not the slow one or the out-of-line stub), the mix counted."""

from __future__ import annotations

from benchmarks.sass_loop import bank_pairs, mix, stalls

SASS = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_0:
        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0020*/               @P0 BRA `(.L_x_1) ;
        /*0030*/                   LDG.E.128 R4, desc[UR4][R2.64] ;
        /*0040*/                   BRA `(.L_x_2) ;
.L_x_1:
        /*0050*/                   ISETP.GE.U32.AND P1, PT, R8, UR4, PT ;
        /*0060*/                   VOTE.ANY R9, PT, P1 ;
        /*0070*/                   BRA.DIV UR5, `(.L_x_3) ;
        /*0080*/                   LDG.E R4, desc[UR4][R2.64] ;
.L_x_2:
        /*0090*/                   LDS.128 R12, [R10] ;
        /*00a0*/                   FFMA R20, R12, R13, R20 ;
        /*00b0*/                   FFMA R21, R12, R14, R21 ;
        /*00c0*/                   FFMA R22, R12, R15, R22 ;
        /*00d0*/                   IADD3 R0, R0, 0x1, RZ ;
        /*00e0*/               @P2 BRA `(.L_x_0) ;
        /*00f0*/                   EXIT ;
.L_x_3:
        /*0100*/                   WARPSYNC.ALL ;
        /*0110*/                   BRA `(.L_x_2) ;
"""


def test_the_hot_path_is_the_loops_shortest_iteration():
    n, counts, path = mix(SASS)
    assert [label for label, _ in path] == [".L_x_0", None, ".L_x_2"]
    assert n == 2 + 2 + 6
    assert counts["FFMA"] == 3 and counts["LDG"] == 1 and counts["VOTE"] == 0
    assert counts["BRA"] == 3 and counts["LDS"] == 1


HEX = """
.L_x_0:
        /*0000*/                   FFMA R20, R12.reuse, R14, R20 ;    /* 0x0000000e0c147223 */
                                                                      /* 0x040fe20000000014 */
        /*0010*/                   FFMA R21, R13, R15, R21 ;          /* 0x0000000f0d157223 */
                                                                      /* 0x000fc40000000015 */
        /*0020*/               @P2 BRA `(.L_x_0) ;                    /* 0xfffffffc00e02947 */
                                                                      /* 0x000fea000383ffff */
        /*0030*/                   EXIT ;                             /* 0x000000000000794d */
                                                                      /* 0x000fea0003800000 */
"""


def test_static_stalls_and_banks_from_hex_output():
    # stall counts 1, 2 and 5 (bits 105-108); R14 and R20 share bank 0, R13, R15, R21 bank 1
    assert stalls(HEX) == 8
    assert bank_pairs(HEX) == (2, 1)
    assert stalls(SASS) is None  # no encodings without -hex
