/* The viewer's page inside the program: web/index.html, the bundled script and the style
   sheet, paths given by CMake (DUDLEY_VIEWER_HTML, _JS, _CSS). */
#define STR2(x) #x
#define STR(x) STR2(x)
#define ASSET(name, file)            \
    .section .rodata;                \
    .global name##_data;             \
    .hidden name##_data;             \
    .global name##_size;             \
    .hidden name##_size;             \
    .balign 16;                      \
name##_data:                         \
    .incbin STR(file);               \
name##_end:                          \
    .balign 8;                       \
name##_size:                         \
    .quad name##_end - name##_data

ASSET(dudley_viewer_html, DUDLEY_VIEWER_HTML)
ASSET(dudley_viewer_js, DUDLEY_VIEWER_JS)
ASSET(dudley_viewer_css, DUDLEY_VIEWER_CSS)
    .section .note.GNU-stack,"",@progbits
