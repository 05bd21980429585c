/* SPDX-License-Identifier: MIT */
/* Runtime objects and functions (pl_runtime.h). */

#include <string.h>

#include "pl_glob.h"
#include "pl_mpi_names.h"
#include "pl_runtime.h"

/* Matched against the object's file name without directories. */
static const char *const runtime_objects[] = {
   /* the C library and its parts */
   "libc.so*", "libc-*.so",
   "libm.so*", "libm-*.so", "libmvec*", "libpthread*", "libdl.so*",
   "libdl-*", "librt.so*", "librt-*", "libutil*", "libresolv*", "libnss_*",
   "libanl*", "libcrypt.so*", "libthread_db*",
   /* compilers' runtimes and support libraries */
   "libgcc_s*", "libstdc++*", "libc++*", "libgfortran*", "libquadmath*",
   "libgomp*", "libomp*", "libiomp*", "libatomic*", "libitm*", "libasan*",
   "libubsan*", "libtsan*", "liblsan*", "libhwasan*", "libunwind*",
   "libffi*", "libtbb*",
   /* MPI and the communication stack */
   "libmpi*", "libpmpi*", "libfmpich*", "libmpl*", "libopa*",
   "libopen-pal*", "libopen-rte*", "libopen-orted*", "libompitrace*",
   "libmca_*", "mca_*", "libpmi*", "libpmix*", "libprrte*", "libprte*",
   "libhwloc*", "libevent*", "libucp*", "libucs*", "libuct*", "libucm*",
   "libfabric*", "libpsm*", "libibverbs*", "librdmacm*", "libmlx*",
   "libefa*", "libnl-*", "libnuma*", "libxpmem*", "libknem*", "libcxi*",
   "libhcoll*", "libocoms*", "libltdl*", "libmunge*", "libslurm*",
   "libpciaccess*", "libudev*", "libcuda*", "libnvidia*",
   /* numerical libraries */
   "libblas*", "libcblas*", "liblapack*", "libopenblas*", "libatlas*",
   "libscalapack*", "libblacs*", "libmkl*", "libfftw*", "libhdf5*",
   "libnetcdf*", "libpnetcdf*", "libsz*", "libaec*", "libmetis*",
   "libparmetis*", "libscotch*", "libsuperlu*", "libumfpack*",
   /* other system libraries */
   "libz.so*", "libzstd*", "liblzma*", "libbz2*", "liblz4*", "libsnappy*",
   "libcrypto*", "libssl*", "libgcrypt*", "libgpg-error*", "libgnutls*",
   "libnettle*", "libhogweed*", "libgmp*", "libtasn1*", "libp11*",
   "libidn*", "libunistring*", "libkrb5*", "libk5crypto*", "libgssapi*",
   "libcom_err*", "libkeyutils*", "libxml2*", "libexpat*", "libicu*",
   "libsystemd*", "libcap*", "libselinux*", "libpcre*", "libblkid*",
   "libmount*", "libuuid*", "libelf*", "libdw*", "libcurl*", "libpython*",
   /* Valgrind's own preloads */
   "vgpreload_*",
   NULL
};

/* The dynamic loader. */
static const char *const loader_objects[] = {
   "ld-linux*", "ld-*.so*", "ld64.so*", NULL
};

/* System library directories. */
static const char *const system_dirs[] = {
   "/lib/*", "/lib64/*", "/usr/lib/*", "/usr/lib64/*", "/usr/local/lib/*",
   "/usr/local/lib64/*", NULL
};

/* Directories of the system library directories whose plug-ins belong to
   an MPI or its transports (a user's own folder named mpich is not). */
static const char *const runtime_dirs[] = {
   "*/openmpi/*", "*/mpich/*", "*/ucx/*", "*/pmix/*", "*/libfabric/*",
   "*/prrte/*", NULL
};

/* C runtime code linked into every executable and shared object. */
static const char *const runtime_functions[] = {
   "_start", "_init", "_fini", "frame_dummy", "register_tm_clones",
   "deregister_tm_clones", "__do_global_dtors_aux", "__libc_csu_init",
   "__libc_csu_fini", "_dl_relocate_static_pie", "__x86.get_pc_thunk.*",
   NULL
};

static int any_match(const char *const *pats, const char *s)
{
   for (; *pats; pats++)
      if (pl_glob_match(*pats, s))
         return 1;
   return 0;
}

enum pl_object_kind pl_object_kind(const char *path)
{
   const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

   if (any_match(loader_objects, base))
      return PL_OBJECT_LOADER;
   if (any_match(runtime_objects, base))
      return PL_OBJECT_RUNTIME;
   if (any_match(system_dirs, path))
      return any_match(runtime_dirs, path) ? PL_OBJECT_RUNTIME
                                           : PL_OBJECT_SYSTEM;
   return PL_OBJECT_PROGRAM;
}

int pl_runtime_function(const char *name)
{
   return any_match(runtime_functions, name);
}

/* Itanium C++ ABI manglings of names in std (St, or nested: NSt, NKSt;
   Sa, Ss, Si, So, Sd: std::allocator, string, istream, ostream,
   iostream) and __gnu_cxx; ZZ...: a local entity of such a function. */
static const char *const std_prefixes[] = {
   "St", "NSt", "NKSt", "NVSt", "NVKSt", "NSa", "NKSa", "NSs", "NKSs",
   "NSi", "NKSi", "NSo", "NKSo", "NSd", "NKSd", "N9__gnu_cxx",
   "NK9__gnu_cxx", NULL
};

int pl_runtime_instantiated(const char *name)
{
   const char *const *p;
   if (strncmp(name, "_Z", 2) != 0)
      return 0;
   name += name[2] == 'Z' ? 3 : 2;    /* a local entity: its function */
   for (p = std_prefixes; *p; p++)
      if (strncmp(name, *p, strlen(*p)) == 0)
         return 1;
   return 0;
}

int pl_runtime_calls_main(const char *name)
{
   /* glibc 2.34 and later; older ones call main from __libc_start_main,
      which calls other things the program did not ask for */
   return pl_glob_match("__libc_start_call_main*", name);
}

/* Whether name is the MPI call MPI_<one of names> by any of its names
   (pl_mpi_names.h). */
static int mpi_call_in(const char *name, const char *const *names, size_t n)
{
   size_t i;
   for (i = 0; i < n; i++)
      if (pl_mpi_call_is(name, names[i]))
         return 1;
   return 0;
}

int pl_runtime_mpi_poll(const char *name)
{
   static const char *const polls[] = {
      "test", "testall", "testany", "testsome", "iprobe", "improbe",
      "request_get_status"
   };
   return mpi_call_in(name, polls, sizeof polls / sizeof polls[0]);
}

int pl_runtime_mpi_abort(const char *name)
{
   static const char *const abort_call[] = { "abort" };
   return mpi_call_in(name, abort_call, 1);
}

int pl_runtime_mpi_interface(const char *name)
{
   if (*name == 'P' || *name == 'p')
      name++;
   return (strncmp(name, "MPI_", 4) == 0 || strncmp(name, "mpi_", 4) == 0)
          && name[4] != '\0';
}
