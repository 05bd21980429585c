/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A traced process's place in an MPI job (pl_mpi_info.h): the launcher's
   executables by name, the rank from the launcher's environment. */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_vki.h"

#include "pl_mpi_info.h"

/* Executables of MPI launchers and their daemons (MPICH hydra, Open MPI
   ORTE and PRRTE).  Debian installs them also as NAME.mpich / NAME.openmpi
   (the alternatives' targets), so a name also matches with one dotted
   suffix, and symbolic links are followed. */
static const HChar *const mpi_launchers[] = {
   "mpirun", "mpiexec", "mpiexec.hydra", "hydra_pmi_proxy", "orterun",
   "orted", "prterun", "prted", "prte", NULL
};

static Bool is_launcher_name(const HChar *path)
{
   const HChar *base = VG_(strrchr)(path, '/');
   base = base ? base + 1 : path;
   for (Int i = 0; mpi_launchers[i]; i++) {
      SizeT n = VG_(strlen)(mpi_launchers[i]);
      if (VG_(strncmp)(base, mpi_launchers[i], n) == 0
          && (base[n] == 0
              || (base[n] == '.' && base[n + 1] != 0
                  && !VG_(strchr)(base + n + 1, '.'))))
         return True;
   }
   return False;
}

static Bool is_mpi_launcher(const HChar *exe)
{
   HChar path[2][VKI_PATH_MAX];
   Int cur = 0;

   if (!exe || !*exe)
      return False;
   VG_(strncpy)(path[0], exe, VKI_PATH_MAX - 1);
   path[0][VKI_PATH_MAX - 1] = 0;
   for (Int depth = 0; depth < 8; depth++) {       /* 8 links at most */
      HChar *p = path[cur], *q = path[1 - cur];
      SSizeT n;
      if (is_launcher_name(p))
         return True;
      n = VG_(readlink)(p, q, VKI_PATH_MAX - 1);
      if (n <= 0)
         return False;
      q[n] = 0;
      if (q[0] != '/') {                 /* relative to the link's folder */
         const HChar *slash = VG_(strrchr)(p, '/');
         if (slash) {
            SizeT dir = slash - p + 1;
            HChar tmp[VKI_PATH_MAX];
            if (dir + n >= VKI_PATH_MAX)
               return False;
            VG_(strcpy)(tmp, q);
            VG_(memcpy)(q, p, dir);
            VG_(strcpy)(q + dir, tmp);
         }
      }
      cur = 1 - cur;
   }
   return False;
}

/* A decimal number from the environment, as the format wants it (no sign,
   no leading zeros); False if VAR is unset or not a number. */
static Bool env_number(const HChar *var, ULong *out)
{
   const HChar *s = VG_(getenv)(var);
   ULong v = 0;

   if (!s || !*s)
      return False;
   for (; *s; s++) {
      if (*s < '0' || *s > '9' || v > 0xFFFFFFFFULL)
         return False;
      v = v * 10 + (*s - '0');
   }
   *out = v;
   return True;
}

/* VG_(getenv) reads the client's environment (the envp of the client's
   initial stack, i.e. what was passed to the exec that started it, under
   --trace-children=yes as well). */
void pl_mpi_describe(pl_buf *b)
{
   static const struct { const HChar *rank, *size; } src[] = {
      { "PMI_RANK",              "PMI_SIZE" },              /* MPICH hydra */
      { "OMPI_COMM_WORLD_RANK",  "OMPI_COMM_WORLD_SIZE" },  /* Open MPI */
      { "PMIX_RANK",             "PMIX_SIZE" },             /* PMIx */
      { "MV2_COMM_WORLD_RANK",   "MV2_COMM_WORLD_SIZE" },   /* MVAPICH2 */
      { "SLURM_PROCID",          "SLURM_NTASKS" },          /* srun */
   };
   ULong rank, size;

   if (is_mpi_launcher(VG_(args_the_exename))) {
      pl_buf_kv(b, "role", "launcher");
      return;
   }
   pl_buf_kv(b, "role", "program");
   for (UInt i = 0; i < sizeof src / sizeof src[0]; i++) {
      if (!env_number(src[i].rank, &rank))
         continue;
      pl_buf_kv_num(b, "mpi_rank", rank);
      /* PMIx has no size variable of its own: Open MPI's beside it */
      if (env_number(src[i].size, &size)
          || (i == 2 && env_number("OMPI_COMM_WORLD_SIZE", &size)))
         pl_buf_kv_num(b, "mpi_size", size);
      pl_buf_kv(b, "mpi_rank_source", src[i].rank);
      return;
   }
}
