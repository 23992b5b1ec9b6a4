//! Models do not share state: each instance has its own `VerilatedContext`, so instances on
//! one thread and on parallel test threads run without interfering.

use rdmagen_csr_tests::ExampleSyncP4;
use rdmagen_harness::axil::{AxiLiteMaster, Event, Timing};
use rdmagen_harness::stall::Profile;
use rdmagen_harness::Model;

const SCRATCH: u64 = 0x1c;

/// Steps every model in lock step (a cycle of one, then a cycle of the next) until every
/// master is idle; returns the data of the last read each master completed.
fn run(duts: &mut [ExampleSyncP4], masters: &mut [AxiLiteMaster]) -> Vec<Option<u64>> {
    let mut got = vec![None; duts.len()];
    let mut ev = Vec::new();
    for _ in 0..10_000 {
        for (i, (d, m)) in duts.iter_mut().zip(masters.iter_mut()).enumerate() {
            m.drive(&d.s_axil());
            d.eval();
            ev.clear();
            m.observe(&d.s_axil(), &mut ev);
            d.tick();
            for e in &ev {
                if let Event::ReadDone { data, .. } = e {
                    got[i] = Some(*data);
                }
            }
        }
        if masters.iter().all(AxiLiteMaster::is_idle) {
            break;
        }
    }
    got
}

/// Writes each model's value to its scratch register, then reads it back (reads and writes
/// are independent AXI channels, so the read waits for the write's response).
fn write_then_read(duts: &mut [ExampleSyncP4], values: &[u32], seed: u64) -> Vec<u64> {
    let timing = Timing::uniform(Profile::new(40, 3));
    let mut masters: Vec<AxiLiteMaster> = (0..duts.len())
        .map(|i| AxiLiteMaster::new(seed + i as u64, timing))
        .collect();
    for (m, v) in masters.iter_mut().zip(values) {
        m.write(SCRATCH, u64::from(*v), 0xf);
    }
    run(duts, &mut masters);
    for m in masters.iter_mut() {
        m.read(SCRATCH);
    }
    run(duts, &mut masters)
        .into_iter()
        .map(|g| g.expect("read completed"))
        .collect()
}

#[test]
fn instances_on_one_thread_are_independent() {
    let mut duts: Vec<ExampleSyncP4> = (0..4).map(|_| ExampleSyncP4::new()).collect();
    for d in &mut duts {
        d.reset(2);
    }
    let values = [0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444];
    assert_eq!(
        write_then_read(&mut duts, &values, 1),
        values.map(u64::from).to_vec()
    );
    // Resetting one leaves the others alone.
    duts[1].reset(2);
    let again = [0xa, 0xb, 0xc, 0xd];
    let got = write_then_read(&mut duts, &again, 2);
    assert_eq!(got, again.map(u64::from).to_vec());
}

#[test]
fn parallel_threads_run_their_own_models() {
    let handles: Vec<_> = (0..8u32)
        .map(|t| {
            std::thread::spawn(move || {
                let mut dut = [ExampleSyncP4::new()];
                dut[0].reset(2);
                (0..200u32).all(|i| {
                    let v = t << 24 | i;
                    write_then_read(&mut dut, &[v], u64::from(t * 1000 + i))[0] == u64::from(v)
                })
            })
        })
        .collect();
    for h in handles {
        assert!(
            h.join().expect("thread"),
            "a thread read another thread's value"
        );
    }
}
