/* DejaVu Sans (fonts-dejavu-core; Bitstream Vera licence, which allows embedding), built
   into the program so that pictures need no font installed at run time. The path is
   given by CMake (DUDLEY_FONT_FILE). */
#define STR2(x) #x
#define STR(x) STR2(x)
    .section .rodata
    .global dudley_font_data
    .hidden dudley_font_data
    .global dudley_font_size
    .hidden dudley_font_size
    .balign 16
dudley_font_data:
    .incbin STR(DUDLEY_FONT_FILE)
dudley_font_end:
    .balign 8
dudley_font_size:
    .quad dudley_font_end - dudley_font_data
    .section .note.GNU-stack,"",@progbits
