/* A stand-in shared library for the frameworks tests: only its SONAME,
   DT_NEEDED and RPATH/RUNPATH matter; the loader emulation never runs it. */
int cudiag_frameworks_stub(void) { return 0; }
