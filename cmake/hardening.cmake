# The hardening Debian builds its packages with (dpkg-buildflags, hardening=+all), for the
# builds the packages come from (scripts/package-deb.sh; lintian's hardening-* tags, checked
# by tests/debian/package-test.sh). The sanitizer builds are left as they are: they are not
# packaged, their interceptors check those libc calls already, and ASan's build is Debug,
# where _FORTIFY_SOURCE cannot work. Included from the top-level CMakeLists.txt before any
# target is defined.

# GATE_HARDEN=OFF builds without it, to measure what it costs (docs/benchmarks.md).
option(GATE_HARDEN "Debian's hardening flags in non-sanitizer builds" ON)
if(GATE_SANITIZE OR NOT GATE_HARDEN)
  return()
endif()

# Stack canaries in every function with a local array or an address taken.
add_compile_options(-fstack-protector-strong)
# What Debian 13 adds where the architecture has it (dpkg 1.22): a large stack frame probed
# page by page, so it cannot jump over the guard page (clang's `movq $0,(%rsp)`, which
# hardening-check, looking for gcc's, calls "unknown"). Checked, since not every target has
# it. Debian 13's other addition, -fcf-protection (x86's CET), is left out: it takes effect
# only in a binary whose every object is marked, the C library's start files too, which
# Debian 12's are not, so it protects nothing here, and its marker at every function's entry
# costs instructions on every call (docs/benchmarks.md, "What the hardening costs").
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-fstack-clash-protection GATE_HAS_STACK_CLASH_PROTECTION)
if(GATE_HAS_STACK_CLASH_PROTECTION)
  add_compile_options(-fstack-clash-protection)
endif()
# Checked variants of the libc functions whose buffer sizes the compiler knows. It needs the
# optimiser (glibc's headers warn otherwise, and warnings are errors), so not in Debug. -U
# first: a toolchain that already defines it would otherwise see it redefined.
add_compile_options($<$<NOT:$<CONFIG:Debug>>:-U_FORTIFY_SOURCE>
  $<$<NOT:$<CONFIG:Debug>>:-D_FORTIFY_SOURCE=2>)
# Position-independent executables (Debian's compilers do it already; said here so another
# toolchain cannot drop it). Every library of the project is static and linked into them.
add_compile_options(-fPIE)
add_link_options(-pie)
# The GOT read-only after start-up: relocated once (relro) and every symbol bound at load
# (now) rather than on first call.
add_link_options(LINKER:-z,relro LINKER:-z,now)
# A binary records only the shared libraries it calls: CMake's imported targets bring in more
# than each binary uses (Boost::json brings boost_container, which none calls; gate_protocol
# brings Boost::url to every program linking it, gate-stdio too, though only its icons and
# token requests call it), and dpkg-shlibdeps turns each recorded library into a package
# dependency. jemalloc stays where it is linked: its malloc is the one the binary calls.
add_link_options(LINKER:--as-needed)
