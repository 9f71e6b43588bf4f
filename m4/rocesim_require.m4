# ROCESIM_REQUIRE(VAR, PKG-CONFIG-NAME, LIB, FUNCTION, DEBIAN-PACKAGE, [OTHER-LIBS])
# pkg-config first; AC_CHECK_LIB where a distribution ships no .pc file.
AC_DEFUN([ROCESIM_REQUIRE], [
  PKG_CHECK_MODULES([$1], [$2], [], [
    AC_CHECK_LIB([$3], [$4], [$1_LIBS="-l$3 $$1_LIBS"],
      [AC_MSG_ERROR([$2 not found: install the Debian package $5 (or run ./install-deps.sh)])],
      [$6])
  ])
])
