! SPDX-License-Identifier: GPL-2.0-or-later
! cg.f90: the Fortran version of the CG solver test program (cg_f), for
! testing ParLoT's run comparison (parlot-diff good/ bad/) and outlier
! detection on a code shaped like NAS CG.  Module cg_mod holds the solver:
! conj_grad runs CG_INNER inner iterations, each a matvec (with a halo
! exchange: MPI_IRECV/MPI_ISEND to both neighbours of a periodic 1-D
! decomposition, then MPI_WAITALL), two dot products (MPI_ALLREDUCE), three
! axpys and a scaling.  The main program's outer loop calls conj_grad, a
! dot product, rescale_z every RESCALE_EVERY iterations, a local
! norm_check, MPI_REDUCE to rank 0 and MPI_BCAST back, and on rank 0
! alone write_report every REPORT_EVERY iterations (a file in the current
! folder, cg_f_report.txt).
!
! usage: cg_f [NITER] [FAULT] [FAULT_RANK] [FAULT_ITER]
!   NITER (15), FAULT none|extra|skip|swap|hang (none), FAULT_RANK (2),
!   FAULT_ITER (8): at outer iteration FAULT_ITER, rank FAULT_RANK
!     extra  calls rescale_z once more, inside conj_grad
!     skip   does not call norm_check (local: nothing hangs)
!     swap   calls axpy before scale_vector once in conj_grad
!     hang   posts an extra MPI_RECV in exchange that nobody sends
!            (the job hangs: the others wait in their next MPI_ALLREDUCE)
!
! At the end every rank prints, in rank order, "rank R calls NAME N" for
! each of its routines, "rank R mpi MPI_X N" for the MPI calls of the
! module's routines and "rank R main-mpi MPI_X N" for those of the main
! program before the printout (which adds one MPI_BARRIER per rank and
! MPI_FINALIZE): the oracle for the traces.  Built -O1 -g -fno-inline.
module cg_mod
  use mpi
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: CG_INNER = 5, FAULT_INNER = 3
  integer, parameter :: FAULT_NONE = 0, FAULT_EXTRA = 1, FAULT_SKIP = 2, &
       FAULT_SWAP = 3, FAULT_HANG = 4
  character(len=5), parameter :: fault_names(0:4) = &
       [character(len=5) :: 'none', 'extra', 'skip', 'swap', 'hang']

  ! the problem: n local rows of a periodic tridiagonal matrix (diagonal
  ! diag, off-diagonals -1); vectors with halo elements 0 and n+1
  integer :: comm, myrank, nprocs, left, right, n
  real(dp) :: shift
  real(dp), allocatable :: diag(:)
  real(dp), allocatable, asynchronous :: x(:), z(:), p(:), q(:), r(:)
  integer :: iter = 0, fault = FAULT_NONE, fault_rank = 2, fault_iter = 8
  integer :: inner = 0                  ! conj_grad's inner iteration

  ! the oracle: calls per routine, and MPI calls of the module's routines
  integer :: n_parse_args = 0, n_setup_problem = 0, n_free_problem = 0
  integer :: n_conj_grad = 0, n_matvec = 0, n_exchange = 0, n_dot = 0
  integer :: n_axpy = 0, n_scale_vector = 0, n_copy_vector = 0
  integer :: n_zero_vector = 0, n_rescale_z = 0, n_norm_check = 0
  integer :: n_write_report = 0, n_print_counts = 0
  integer :: n_mpi_comm_rank = 0, n_mpi_comm_size = 0, n_mpi_irecv = 0
  integer :: n_mpi_isend = 0, n_mpi_waitall = 0, n_mpi_allreduce = 0

contains

  subroutine parse_args(niter, status)
    integer, intent(out) :: niter, status
    character(len=64) :: arg
    integer :: nargs, ios, k
    n_parse_args = n_parse_args + 1
    niter = 15
    status = 0
    nargs = command_argument_count()
    if (nargs > 4) status = 1
    if (nargs >= 1) then
      call get_command_argument(1, arg)
      read (arg, *, iostat=ios) niter
      if (ios /= 0 .or. niter < 1) status = 1
    end if
    if (nargs >= 2) then
      call get_command_argument(2, arg)
      fault = -1
      do k = 0, 4
        if (trim(arg) == trim(fault_names(k))) fault = k
      end do
      if (fault < 0) status = 1
    end if
    if (nargs >= 3) then
      call get_command_argument(3, arg)
      read (arg, *, iostat=ios) fault_rank
      if (ios /= 0) status = 1
    end if
    if (nargs >= 4) then
      call get_command_argument(4, arg)
      read (arg, *, iostat=ios) fault_iter
      if (ios /= 0) status = 1
    end if
  end subroutine parse_args

  subroutine setup_problem(acomm, nlocal)
    integer, intent(in) :: acomm, nlocal
    integer :: i, ierr
    n_setup_problem = n_setup_problem + 1
    comm = acomm
    call MPI_Comm_rank(comm, myrank, ierr)
    call MPI_Comm_size(comm, nprocs, ierr)
    n_mpi_comm_rank = n_mpi_comm_rank + 1
    n_mpi_comm_size = n_mpi_comm_size + 1
    ! periodic: every rank has two neighbours and does the same calls
    left = mod(myrank + nprocs - 1, nprocs)
    right = mod(myrank + 1, nprocs)
    n = nlocal
    shift = 10.0_dp
    allocate (diag(n), x(0:n + 1), z(0:n + 1), p(0:n + 1), q(0:n + 1), &
         r(0:n + 1))
    x = 0.0_dp
    z = 0.0_dp
    p = 0.0_dp
    q = 0.0_dp
    r = 0.0_dp
    do i = 1, n
      diag(i) = 2.5_dp + 0.5_dp * sin(0.1_dp * real(myrank * n + i, dp))
      x(i) = 1.0_dp
    end do
  end subroutine setup_problem

  subroutine free_problem()
    n_free_problem = n_free_problem + 1
    deallocate (diag, x, z, p, q, r)
  end subroutine free_problem

  ! v's halo elements 0 and n+1 get the neighbours' boundary elements
  subroutine exchange(v)
    real(dp), intent(inout), asynchronous :: v(0:)
    integer :: req(4), ierr
    real(dp) :: lost
    n_exchange = n_exchange + 1
    ! tag 0 travels rightwards, tag 1 leftwards
    call MPI_Irecv(v(0), 1, MPI_DOUBLE_PRECISION, left, 0, comm, req(1), ierr)
    call MPI_Irecv(v(n + 1), 1, MPI_DOUBLE_PRECISION, right, 1, comm, &
         req(2), ierr)
    n_mpi_irecv = n_mpi_irecv + 2
    call MPI_Isend(v(n), 1, MPI_DOUBLE_PRECISION, right, 0, comm, req(3), ierr)
    call MPI_Isend(v(1), 1, MPI_DOUBLE_PRECISION, left, 1, comm, req(4), ierr)
    n_mpi_isend = n_mpi_isend + 2
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    n_mpi_waitall = n_mpi_waitall + 1
    if (inner == FAULT_INNER .and. fault == FAULT_HANG .and. &
        myrank == fault_rank .and. iter == fault_iter) then
      ! the injected extra receive: nobody sends tag 99 (uncounted: the
      ! run never reports)
      write (error_unit, '(a,i0,a)') 'rank ', myrank, &
           ' waits for a message nobody sends'
      flush (error_unit)
      call MPI_Recv(lost, 1, MPI_DOUBLE_PRECISION, left, 99, comm, &
           MPI_STATUS_IGNORE, ierr)
    end if
  end subroutine exchange

  ! w = A v (v's halo refreshed first)
  subroutine matvec(v, w)
    real(dp), intent(inout), asynchronous :: v(0:)
    real(dp), intent(inout) :: w(0:)
    integer :: i
    n_matvec = n_matvec + 1
    call exchange(v)
    do i = 1, n
      w(i) = -v(i - 1) + diag(i) * v(i) - v(i + 1)
    end do
  end subroutine matvec

  ! the global dot product of the interior elements
  real(dp) function dot(a, b)
    real(dp), intent(in) :: a(0:), b(0:)
    real(dp) :: local, global
    integer :: ierr
    n_dot = n_dot + 1
    local = sum(a(1:n) * b(1:n))
    call MPI_Allreduce(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
         comm, ierr)
    n_mpi_allreduce = n_mpi_allreduce + 1
    dot = global
  end function dot

  ! y = y + alpha x (interior)
  subroutine axpy(alpha, xv, yv)
    real(dp), intent(in) :: alpha, xv(0:)
    real(dp), intent(inout) :: yv(0:)
    n_axpy = n_axpy + 1
    yv(1:n) = yv(1:n) + alpha * xv(1:n)
  end subroutine axpy

  subroutine scale_vector(alpha, v)
    real(dp), intent(in) :: alpha
    real(dp), intent(inout) :: v(0:)
    n_scale_vector = n_scale_vector + 1
    v(1:n) = alpha * v(1:n)
  end subroutine scale_vector

  subroutine copy_vector(src, dst)
    real(dp), intent(in) :: src(0:)
    real(dp), intent(inout) :: dst(0:)
    n_copy_vector = n_copy_vector + 1
    dst(1:n) = src(1:n)
  end subroutine copy_vector

  subroutine zero_vector(v)
    real(dp), intent(inout) :: v(0:)
    n_zero_vector = n_zero_vector + 1
    v(1:n) = 0.0_dp
  end subroutine zero_vector

  ! z = factor z: local, no MPI
  subroutine rescale_z(factor)
    real(dp), intent(in) :: factor
    n_rescale_z = n_rescale_z + 1
    z(1:n) = factor * z(1:n)
  end subroutine rescale_z

  ! A z = x by CG_INNER CG iterations from z = 0, as NAS CG's conj_grad;
  ! returns the residual norm ||x - A z||
  real(dp) function conj_grad()
    real(dp) :: rho, rho0, d, alpha, beta
    integer :: k
    logical :: now
    n_conj_grad = n_conj_grad + 1
    ! is this rank told to deviate in this call?
    now = myrank == fault_rank .and. iter == fault_iter
    call zero_vector(z)
    call copy_vector(x, r)
    call copy_vector(r, p)
    rho = dot(r, r)
    do k = 1, CG_INNER
      inner = k
      call matvec(p, q)
      d = dot(p, q)
      alpha = rho / d
      call axpy(alpha, p, z)
      if (k == FAULT_INNER .and. now .and. fault == FAULT_EXTRA) then
        call rescale_z(1.0_dp)          ! the injected extra call
      end if
      call axpy(-alpha, q, r)
      rho0 = rho
      rho = dot(r, r)
      beta = rho / rho0
      ! p = r + beta p
      if (k == FAULT_INNER .and. now .and. fault == FAULT_SWAP) then
        call axpy(1.0_dp, r, p)         ! the injected swap
        call scale_vector(beta, p)
      else
        call scale_vector(beta, p)
        call axpy(1.0_dp, r, p)
      end if
    end do
    inner = 0
    ! r = A z - x
    call matvec(z, r)
    call axpy(-1.0_dp, x, r)
    conj_grad = sqrt(dot(r, r))
  end function conj_grad

  ! a local sanity check of z: the sum of its squares, or -1 if an element
  ! is not finite.  No MPI: a rank may skip it without hanging the job
  real(dp) function norm_check()
    integer :: i
    n_norm_check = n_norm_check + 1
    norm_check = 0.0_dp
    do i = 1, n
      if (.not. (abs(z(i)) <= huge(1.0_dp))) then
        norm_check = -1.0_dp
        return
      end if
      norm_check = norm_check + z(i) * z(i)
    end do
  end function norm_check

  ! root-only I/O: a line per call in cg_f_report.txt (created by the
  ! first call, appended to by the others)
  subroutine write_report(it, rnorm, zeta)
    integer, intent(in) :: it
    real(dp), intent(in) :: rnorm, zeta
    integer :: u, ios
    n_write_report = n_write_report + 1
    if (n_write_report == 1) then
      open (newunit=u, file='cg_f_report.txt', status='replace', &
           action='write', iostat=ios)
    else
      open (newunit=u, file='cg_f_report.txt', status='old', &
           position='append', action='write', iostat=ios)
    end if
    if (ios /= 0) then
      write (0, '(a)') 'cg_f: cannot write cg_f_report.txt'
      return
    end if
    write (u, '("iteration ",i3,"  ranks ",i0,"  rows ",i0,"  rnorm ",es14.6,&
         &"  zeta ",f16.10)') it, nprocs, nprocs * n, rnorm, zeta
    close (u)
  end subroutine write_report
end module cg_mod

program cg
  use mpi
  use cg_mod
  implicit none
  integer, parameter :: LOCAL_N = 200, REPORT_EVERY = 5, RESCALE_EVERY = 3
  integer :: rank, size, ierr, niter, status, it, rr
  integer :: n_init = 0, n_comm_rank = 0, n_comm_size = 0, n_reduce = 0
  integer :: n_bcast = 0
  logical :: bad = .false.
  real(dp) :: rnorm = 0.0_dp, zeta = 0.0_dp, local = 0.0_dp
  real(dp) :: global = 0.0_dp, xz, zz, buf(2)

  call MPI_Init(ierr)
  n_init = n_init + 1
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  n_comm_rank = n_comm_rank + 1
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  n_comm_size = n_comm_size + 1
  call parse_args(niter, status)
  if (status /= 0) then
    if (rank == 0) write (0, '(a)') &
         'usage: cg_f [NITER] [none|extra|skip|swap] [FAULT_RANK] [FAULT_ITER]'
    call MPI_Finalize(ierr)
    stop 2
  end if
  if (rank == 0 .and. fault /= FAULT_NONE .and. (fault_rank < 0 .or. &
       fault_rank >= size .or. fault_iter < 1 .or. fault_iter > niter)) &
       write (0, '(a)') 'cg_f: warning: the fault never happens'

  call setup_problem(MPI_COMM_WORLD, LOCAL_N)
  do it = 1, niter
    iter = it
    rnorm = conj_grad()
    ! NAS CG: zeta from x.z, and x = z / ||z|| (here every few iterations
    ! only; z is copied into x each time)
    xz = dot(x, z)
    if (mod(it, RESCALE_EVERY) == 0) then
      zz = dot(z, z)
      call rescale_z(1.0_dp / sqrt(zz))
    end if
    call copy_vector(z, x)
    if (.not. (fault == FAULT_SKIP .and. rank == fault_rank .and. &
         it == fault_iter)) then
      local = norm_check()              ! else last iteration's value
    end if
    if (local < 0.0_dp) bad = .true.
    call MPI_Reduce(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, &
         MPI_COMM_WORLD, ierr)
    n_reduce = n_reduce + 1
    ! rank 0 sends zeta and the global norm check to every rank
    if (rank == 0) buf = [shift + 1.0_dp / xz, global]
    call MPI_Bcast(buf, 2, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    n_bcast = n_bcast + 1
    zeta = buf(1)
    if (.not. (buf(2) >= 0.0_dp)) bad = .true.
    if (rank == 0 .and. mod(it, REPORT_EVERY) == 0) &
         call write_report(it, rnorm, zeta)
  end do
  call free_problem()

  ! output in rank order, one rank at a time
  do rr = 0, size - 1
    if (rr == rank) then
      call print_counts()
      write (*, '("rank ",i0," fault ",a," rank ",i0," iteration ",i0)') &
           rank, trim(fault_names(fault)), fault_rank, fault_iter
      write (*, '("rank ",i0," result rnorm ",es14.6," zeta ",f16.10,1x,a)') &
           rank, rnorm, zeta, merge('NOT FINITE', 'finite    ', bad)
      flush (6)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
  if (bad) stop 1

contains

  subroutine print_counts()
    character(len=*), parameter :: fc = '("rank ",i0," calls ",a," ",i0)'
    character(len=*), parameter :: fm = '("rank ",i0," ",a," ",a," ",i0)'
    n_print_counts = n_print_counts + 1
    write (*, fc) rank, 'parse_args', n_parse_args
    write (*, fc) rank, 'print_counts', n_print_counts
    write (*, fc) rank, 'setup_problem', n_setup_problem
    write (*, fc) rank, 'free_problem', n_free_problem
    write (*, fc) rank, 'conj_grad', n_conj_grad
    write (*, fc) rank, 'matvec', n_matvec
    write (*, fc) rank, 'exchange', n_exchange
    write (*, fc) rank, 'dot', n_dot
    write (*, fc) rank, 'axpy', n_axpy
    write (*, fc) rank, 'scale_vector', n_scale_vector
    write (*, fc) rank, 'copy_vector', n_copy_vector
    write (*, fc) rank, 'zero_vector', n_zero_vector
    write (*, fc) rank, 'rescale_z', n_rescale_z
    write (*, fc) rank, 'norm_check', n_norm_check
    write (*, fc) rank, 'write_report', n_write_report
    write (*, fm) rank, 'mpi', 'MPI_Comm_rank', n_mpi_comm_rank
    write (*, fm) rank, 'mpi', 'MPI_Comm_size', n_mpi_comm_size
    write (*, fm) rank, 'mpi', 'MPI_Irecv', n_mpi_irecv
    write (*, fm) rank, 'mpi', 'MPI_Isend', n_mpi_isend
    write (*, fm) rank, 'mpi', 'MPI_Waitall', n_mpi_waitall
    write (*, fm) rank, 'mpi', 'MPI_Allreduce', n_mpi_allreduce
    write (*, fm) rank, 'main-mpi', 'MPI_Init', n_init
    write (*, fm) rank, 'main-mpi', 'MPI_Comm_rank', n_comm_rank
    write (*, fm) rank, 'main-mpi', 'MPI_Comm_size', n_comm_size
    write (*, fm) rank, 'main-mpi', 'MPI_Reduce', n_reduce
    write (*, fm) rank, 'main-mpi', 'MPI_Bcast', n_bcast
  end subroutine print_counts
end program cg
