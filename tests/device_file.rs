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
    // Buffered by default, and said so.
    assert_eq!(info.o_direct, Some(false));
    assert!(info.notes[0].contains("buffered"), "{:?}", info.notes);
    assert!(d.read(0, 4090, &mut [0u8; 10]).is_err());
    drop(d);
    // ext4 and xfs accept O_DIRECT; tmpfs does not, and says so.
    let mut d = FileDevice::open_direct(&path, 4096, 0).unwrap();
    d.read(3, 0, &mut buf).unwrap();
    assert_eq!(&buf[9..14], &[7, 1, 2, 3, 7]);
    let info = d.info();
    assert_eq!(info.o_direct, Some(d.is_direct()));
    if !d.is_direct() {
        assert!(!info.notes.is_empty());
    }
}

/// Issue #29: a trim is charged to the device time and counted, and the
/// page reads as zeros after it, punched (no data written) where the
/// filesystem can, else overwritten (one page write, counted).
#[test]
fn trims_are_charged_to_the_device_time_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    for direct in [false, true] {
        let path = dir.path().join(format!("t{direct}.img"));
        let mut d = if direct {
            FileDevice::create_direct(&path, 4096, 0).unwrap()
        } else {
            FileDevice::create(&path, 4096, 0).unwrap()
        };
        for lba in 0..64 {
            d.write(lba, 0, &[9u8; 4096]).unwrap();
        }
        d.sync().unwrap();
        let before = d.stats();
        for lba in 0..64 {
            d.trim(lba).unwrap();
        }
        let after = d.stats().delta(&before);
        assert_eq!(after.logical_trims, 64);
        assert!(after.time_us > 0.0, "{after:?}");
        // A punched page writes nothing; one overwritten with zeros is
        // counted as the write it is.
        assert!(
            after.physical_writes == 0 || after.physical_writes == 64,
            "{after:?}"
        );
        assert_eq!(after.logical_writes, 0);
        let mut buf = vec![1u8; 4096];
        d.read(17, 0, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0));
        // The file keeps its length (the hole is inside it).
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 64 * 4096);
    }
}

#[test]
fn small_pages_fall_back_to_buffered_io_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = FileDevice::create_direct(&dir.path().join("small.img"), 512, 100).unwrap();
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
