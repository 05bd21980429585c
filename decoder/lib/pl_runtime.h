/* SPDX-License-Identifier: MIT */
/* What "the program's own code" is, for the program's view (pl_filter.h,
   images=program).  Objects are of four kinds, by their file names:

   - runtime libraries (globs listed in pl_runtime.c): the C, C++
     and Fortran runtimes and the compilers' support libraries (libgcc_s,
     libgomp, the sanitizers); the MPI and communication stack (libmpi*,
     MPICH's and Open MPI's own libraries and plug-ins, PMI/PMIx, hwloc,
     libevent, UCX, libfabric, verbs, PSM); well-known numerical libraries
     (BLAS, LAPACK, FFTW, HDF5, NetCDF, MKL); compression, crypto, XML and
     other system libraries; Valgrind's preloads;
   - the dynamic loader (ld-linux*), whose lazy binding and TLS helpers
     are never shown;
   - other objects in a system library directory (/lib, /usr/lib, /lib64,
     /usr/lib64, /usr/local/lib and their subdirectories): the program's
     own code where the program's own code calls them (LAMMPS installs
     its code as liblammps.so there, beside a stripped lmp), library
     internals where a runtime calls them (X11 below hwloc);
   - everything else, the main executable first: the program.

   Functions of the program's objects that are the C runtime's start-up
   and shutdown code (_start, _init, frame_dummy, ...) are not the
   program's either.  Users override the rule per object with
   images=program's companions program-objects= and library-objects=
   (pl_filter.h).

   Pure functions of names: no state, thread-safe.  (Since libparlot
   0.7.) */
#ifndef PL_RUNTIME_H
#define PL_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

enum pl_object_kind {
   PL_OBJECT_PROGRAM,     /* the program's own */
   PL_OBJECT_SYSTEM,      /* in a system library directory, not known */
   PL_OBJECT_RUNTIME,     /* a known runtime library */
   PL_OBJECT_LOADER       /* the dynamic loader */
};

/* The kind of the object at path (its full path as recorded). */
enum pl_object_kind pl_object_kind(const char *path);

/* Whether a function of the program's objects is C runtime code the
   compiler linked in (_start, _init, frame_dummy, ...), not the
   program's own. */
int pl_runtime_function(const char *name);

/* Whether a function name (as recorded: C++ names mangled) is the C++
   standard library's (namespaces std and __gnu_cxx: std::sort's
   __introsort_loop, std::vector's _M_realloc_insert), instantiated from
   its headers into the object that uses it.  Such code is the library's
   wherever it was compiled: its calls follow the data (a sort's
   recursion, a vector's growth), and the program's view shows it as one
   opaque call where the program's own code called it.  Since 0.15. */
int pl_runtime_instantiated(const char *name);

/* Whether a function is the C library's code that calls main
   (__libc_start_call_main): what it calls stands for the program's own
   calls when the main executable is stripped and main itself is never
   seen (LAMMPS's lmp calls MPI_Init and liblammps.so from there). */
int pl_runtime_calls_main(const char *name);

/* Whether a function name is the MPI interface: the C and Fortran
   bindings and their profiling names (MPI_Send, PMPI_Send, mpi_send_,
   pmpi_send__), not the libraries' internals (MPIR_, MPIDI_, ompi_).
   Since 0.8. */
int pl_runtime_mpi_interface(const char *name);

/* Whether a function name is one of MPI's polls: the calls that ask
   whether a request has completed or a message has come (MPI_Test,
   MPI_Testall, MPI_Testany, MPI_Testsome, MPI_Iprobe, MPI_Improbe,
   MPI_Request_get_status; their profiling and Fortran names).  How often
   a program calls them in a loop is the timing's, not the program's
   logic, so comparisons of calls leave them out.  Since 0.12. */
int pl_runtime_mpi_poll(const char *name);

/* Whether a function name is MPI_Abort (its profiling and Fortran names
   too): a rank that calls it ends the whole job.  Since 0.14. */
int pl_runtime_mpi_abort(const char *name);

#ifdef __cplusplus
}
#endif

#endif
