! SPDX-License-Identifier: GPL-2.0-or-later
! The client requests from Fortran, through parlot_fortran.c: recording
! stops around hidden_work, and each step is marked (the label's trailing
! blanks are not part of it).
subroutine visible_work(i)
  integer, intent(in) :: i
  integer, save :: acc = 0
  acc = acc + i
end subroutine visible_work

subroutine hidden_work(i)
  integer, intent(in) :: i
  integer, save :: acc = 0
  acc = acc - i
end subroutine hidden_work

program phases
  implicit none
  integer :: i
  character(len=12) :: label = 'step'
  do i = 1, 3
     call parlot_mark(label)
     call visible_work(i)
     call parlot_stop_trace()
     call hidden_work(i)
     call parlot_start_trace()
  end do
  call parlot_flush()
end program phases
