! An unmodified Fortran program calling MPI_Ialltoallv, then the persistent
! MPI_Alltoallv_init started twice; `use mpi_f08` with -DMPIX_F08, else `use mpi`.
! Run with the drop-in preloaded (test/fortran-dropin.sh): MPICH's Fortran
! bindings call the C MPI_Ialltoallv and MPI_Alltoallv_init, so mpix runs them.
! Its mpi_f08 bindings call MPI_Start and MPI_Wait as PMPI_*, so there the
! persistent exchange stays with the MPI library (the drop-in sees who called);
! with `use mpi` it runs through mpix (its handle crosses MPI_Request_f2c/c2f).
! Gapped receive blocks; the gaps must stay -7.
program ialltoallv_fortran
#ifdef MPIX_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer :: rank, nproc, j, e, ierr, errors, total, round
  integer, allocatable :: sc(:), sd(:), rc(:), rd(:), sb(:), rb(:)
#ifdef MPIX_F08
  type(MPI_Request) :: req, preq
#else
  integer :: req, preq
#endif
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  allocate(sc(0:nproc-1), sd(0:nproc-1), rc(0:nproc-1), rd(0:nproc-1))
  do j = 0, nproc - 1
    sc(j) = mod(rank + j, 3) + 1
    rc(j) = mod(j + rank, 3) + 1
  end do
  sd(0) = 0; rd(0) = 1
  do j = 1, nproc - 1
    sd(j) = sd(j-1) + sc(j-1)
    rd(j) = rd(j-1) + rc(j-1) + 1
  end do
  allocate(sb(0:sd(nproc-1)+sc(nproc-1)), rb(0:rd(nproc-1)+rc(nproc-1)+1))
  do j = 0, nproc - 1
    do e = 0, sc(j) - 1
      sb(sd(j) + e) = rank * 1000 + j * 10 + e
    end do
  end do
  rb = -7
  call MPI_Ialltoallv(sb, sc, sd, MPI_INTEGER, rb, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  errors = 0
  do j = 0, nproc - 1
    if (rb(rd(j) - 1) /= -7) errors = errors + 1
    do e = 0, rc(j) - 1
      if (rb(rd(j) + e) /= j * 1000 + rank * 10 + e) errors = errors + 1
    end do
  end do
  call MPI_Alltoallv_init(sb, sc, sd, MPI_INTEGER, rb, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, &
                          preq, ierr)
  do round = 1, 2
    do j = 0, nproc - 1
      do e = 0, sc(j) - 1
        sb(sd(j) + e) = round * 100000 + rank * 1000 + j * 10 + e
      end do
    end do
    rb = -7
    call MPI_Start(preq, ierr)
    call MPI_Wait(preq, MPI_STATUS_IGNORE, ierr)
    do j = 0, nproc - 1
      if (rb(rd(j) - 1) /= -7) errors = errors + 1
      do e = 0, rc(j) - 1
        if (rb(rd(j) + e) /= round * 100000 + j * 1000 + rank * 10 + e) errors = errors + 1
      end do
    end do
  end do
  call MPI_Request_free(preq, ierr)
  call MPI_Allreduce(errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print *, 'No Errors'
    else
      print *, 'Found ', total, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program
