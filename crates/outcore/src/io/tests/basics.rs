//! The io layer's small parts: which backends there are and their names,
//! the I/O statistics, and aligned buffers charged to the budget.

use super::*;

#[test]
fn uring_is_available_here() {
    let r = Reader::new(Some(Backend::Uring), 32).unwrap();
    assert_eq!(r.backend(), Backend::Uring);
    assert_eq!(Reader::new(None, 32).unwrap().backend(), Backend::Uring);
    assert_eq!(
        Reader::new(Some(Backend::Sync), 32).unwrap().backend(),
        Backend::Sync
    );
    assert!(Reader::new(None, 0).is_err());
    assert!(Reader::new(None, MAX_DEPTH + 1).is_err());
}

#[test]
fn backend_names() {
    assert_eq!("uring".parse::<Backend>().unwrap(), Backend::Uring);
    assert_eq!("sync".parse::<Backend>().unwrap(), Backend::Sync);
    assert!("aio".parse::<Backend>().is_err());
    assert_eq!(Backend::Uring.to_string(), "uring");
    assert_eq!(Backend::Sync.to_string(), "sync");
}

#[test]
fn stats_add_and_subtract() {
    let a = IoStats {
        bytes_read: 10,
        bytes_written: 3,
        requests: 2,
        wait_seconds: 1.0,
    };
    let mut b = a;
    b.add(&a);
    assert_eq!((b - a).bytes_read, 10);
    assert_eq!(b.requests, 4);
    assert!(serde_json::to_string(&b)
        .unwrap()
        .contains("\"wait_seconds\":2.0"));
}

#[test]
fn aligned_buf_charges_the_budget() {
    let b = Budget::new(1 << 20);
    {
        let mut a = AlignedBuf::new(5000, &b, "test buffer").unwrap();
        assert_eq!(a.len(), 8192);
        assert!(!a.is_empty());
        assert_eq!(b.used(), 8192);
        assert!((a.as_mut_ptr() as usize).is_multiple_of(ALIGN));
        assert!(a.as_slice().iter().all(|&x| x == 0));
        a.as_mut_slice()[8191] = 1;
        let e = AlignedBuf::new(1 << 20, &b, "big buffer").unwrap_err();
        assert!(e.to_string().contains("big buffer needs"), "{e}");
        let z = AlignedBuf::new(0, &b, "empty").unwrap();
        assert!(z.is_empty() && z.as_slice().is_empty());
    }
    assert_eq!(b.used(), 0);
    assert_eq!(b.peak(), 8192);
    let a = AlignedBuf::new(1 << 20, &b, "all").unwrap();
    assert_eq!(b.used(), 1 << 20);
    drop(a);
    assert_eq!(b.used(), 0);
}
