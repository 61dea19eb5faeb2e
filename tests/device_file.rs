//! The file device: round trips, partial writes, reopen, O_DIRECT.

use flashix::device::fault::{FaultPlan, FaultyDevice};
use flashix::device::file::FileDevice;
use flashix::device::{BlockDevice, DeviceError};

#[test]
fn round_trip_partial_write_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let mut d = FileDevice::create(&path, 4096, 0).unwrap();
    let mut buf = vec![1u8; 4096];
    d.read(3, 0, &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0), "unwritten pages read as zeros");
    d.write(3, 0, &vec![7u8; 4096]).unwrap();
    d.write(3, 10, &[1, 2, 3]).unwrap();
    d.sync().unwrap();
    drop(d);
    let mut d = FileDevice::open(&path, 4096, 0).unwrap();
    d.read(3, 0, &mut buf).unwrap();
    assert_eq!(&buf[9..14], &[7, 1, 2, 3, 7]);
    let info = d.info();
    assert_eq!(info.kind, "file");
    // ext4 and xfs accept O_DIRECT; tmpfs does not, and says so.
    assert_eq!(info.o_direct, Some(d.is_direct()));
    if !d.is_direct() {
        assert!(!info.notes.is_empty());
    }
    assert!(d.read(0, 4090, &mut [0u8; 10]).is_err());
}

#[test]
fn small_pages_fall_back_to_buffered_io_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = FileDevice::create(&dir.path().join("small.img"), 512, 100).unwrap();
    assert!(!d.is_direct());
    assert!(d.info().notes[0].contains("O_DIRECT"));
    d.write(99, 0, &[5u8; 512]).unwrap();
    assert!(matches!(
        d.write(100, 0, &[5u8; 512]),
        Err(DeviceError::OutOfRange { .. })
    ));
}

#[test]
fn faulty_file_device_cuts_power() {
    let dir = tempfile::tempdir().unwrap();
    let d = FileDevice::create(&dir.path().join("f.img"), 512, 0).unwrap();
    let plan = FaultPlan {
        power_cut_after: Some(2),
        ..FaultPlan::default()
    };
    let mut f = FaultyDevice::new(d, plan);
    f.write(0, 0, &[1u8; 512]).unwrap();
    f.write(1, 0, &[1u8; 512]).unwrap();
    assert!(matches!(
        f.write(2, 0, &[1u8; 512]),
        Err(DeviceError::PowerLost)
    ));
    assert!(matches!(f.sync(), Err(DeviceError::PowerLost)));
    let mut d = f.into_inner();
    let mut buf = [0u8; 512];
    d.read(2, 0, &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0));
}

/// One writer per file: a second device on a file that is open fails with
/// `Busy` and leaves the file as it was (creating would have truncated
/// it); once the first is dropped the file opens again.
#[test]
fn a_second_device_on_an_open_file_is_busy_and_destroys_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.img");
    let mut first = FileDevice::create(&path, 4096, 0).unwrap();
    first.write(2, 0, &vec![9u8; 4096]).unwrap();
    first.sync().unwrap();
    for second in [
        FileDevice::open(&path, 4096, 0),
        FileDevice::create(&path, 4096, 0),
    ] {
        let e = second.unwrap_err();
        assert!(matches!(e, DeviceError::Busy { .. }), "{e}");
        assert!(e.to_string().contains("in use"), "{e}");
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 3 * 4096);
    drop(first);
    let mut again = FileDevice::open(&path, 4096, 0).unwrap();
    let mut buf = vec![0u8; 4096];
    again.read(2, 0, &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 9));
}
