! SPDX-License-Identifier: GPL-2.0-or-later
! Fortran MPI test program for ParLoT: a ring exchange and a reduction.
! Each rank counts its own calls of its subroutines and prints them
! ("rank R calls NAME N"), and its calls of MPI routines ("rank R mpi
! MPI_Send N"): the oracle the traces must match.
module ring_mod
  implicit none
  integer :: n_pass_token = 0, n_add_local = 0, n_reduce_all = 0
  integer :: n_send = 0, n_recv = 0, n_allreduce = 0
contains
  subroutine add_local(rank, token)
    integer, intent(in) :: rank
    integer, intent(inout) :: token
    n_add_local = n_add_local + 1
    token = token + rank
  end subroutine add_local

  subroutine pass_token(rank, nprocs, token, round)
    use mpi
    integer, intent(in) :: rank, nprocs, round
    integer, intent(inout) :: token
    integer :: ierr, nxt, prv
    integer :: st(MPI_STATUS_SIZE)
    n_pass_token = n_pass_token + 1
    nxt = mod(rank + 1, nprocs)
    prv = mod(rank + nprocs - 1, nprocs)
    if (rank == 0) then
      call add_local(rank, token)
      call MPI_Send(token, 1, MPI_INTEGER, nxt, round, MPI_COMM_WORLD, ierr)
      call MPI_Recv(token, 1, MPI_INTEGER, prv, round, MPI_COMM_WORLD, st, ierr)
    else
      call MPI_Recv(token, 1, MPI_INTEGER, prv, round, MPI_COMM_WORLD, st, ierr)
      call add_local(rank, token)
      call MPI_Send(token, 1, MPI_INTEGER, nxt, round, MPI_COMM_WORLD, ierr)
    end if
    n_send = n_send + 1
    n_recv = n_recv + 1
  end subroutine pass_token

  subroutine reduce_all(v, total)
    use mpi
    integer, intent(in) :: v
    integer, intent(out) :: total
    integer :: ierr
    n_reduce_all = n_reduce_all + 1
    n_allreduce = n_allreduce + 1
    call MPI_Allreduce(v, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  end subroutine reduce_all
end module ring_mod

program ring
  use mpi
  use ring_mod
  implicit none
  integer :: ierr, rank, nprocs, token, r, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  token = 0
  do r = 1, 3 + rank
    if (r <= 3) then
      call pass_token(rank, nprocs, token, r)
    else
      call add_local(rank, token)
    end if
  end do
  call reduce_all(rank, total)
  write (*, '(A,I0,A,I0)') 'rank ', rank, ' calls __ring_mod_MOD_pass_token ', n_pass_token
  write (*, '(A,I0,A,I0)') 'rank ', rank, ' calls __ring_mod_MOD_add_local ', n_add_local
  write (*, '(A,I0,A,I0)') 'rank ', rank, ' calls __ring_mod_MOD_reduce_all ', n_reduce_all
  write (*, '(A,I0,A)') 'rank ', rank, ' mpi MPI_Init 1'
  write (*, '(A,I0,A,I0)') 'rank ', rank, ' mpi MPI_Send ', n_send
  write (*, '(A,I0,A,I0)') 'rank ', rank, ' mpi MPI_Recv ', n_recv
  write (*, '(A,I0,A,I0)') 'rank ', rank, ' mpi MPI_Allreduce ', n_allreduce
  write (*, '(A,I0,A)') 'rank ', rank, ' mpi MPI_Finalize 1'  ! just below
  call MPI_Finalize(ierr)
end program ring
