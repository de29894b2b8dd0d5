//! The round-trip group: two rings of 16, one thread each way, an item
//! bounced back and forth; each peer through the adapters of `spsc.rs`.

use super::harness::{pingpong, pingpong_floor, pingpong_floor_two_lines};
use super::*;

pub fn pingpong_group(c: &mut Criterion) {
    const N: usize = 16;
    let mut g = c.benchmark_group("spsc_pingpong");
    g.bench_function("floor_atomic", |b| b.iter_custom(pingpong_floor));
    g.bench_function("floor_two_lines", |b| {
        b.iter_custom(pingpong_floor_two_lines)
    });
    g.bench_function("sluicegate", |b| {
        b.iter_custom(|iters| {
            let (mut r1, mut r2) = (
                Box::new(RejectRing::<N>::new()),
                Box::new(RejectRing::<N>::new()),
            );
            pingpong(
                iters,
                r1.split(),
                r2.split(),
                sluicegate_push::<N>,
                sluicegate_pop::<N>,
            )
        })
    });
    g.bench_function("sluicegate_flag", |b| {
        b.iter_custom(|iters| {
            let (mut r1, mut r2) = (
                Box::new(FlagRing::<N>::new()),
                Box::new(FlagRing::<N>::new()),
            );
            pingpong(iters, r1.split(), r2.split(), flag_push::<N>, flag_pop::<N>)
        })
    });
    g.bench_function("rtrb", |b| {
        b.iter_custom(|iters| {
            let (a, b) = (rtrb::RingBuffer::new(N), rtrb::RingBuffer::new(N));
            pingpong(iters, a, b, rtrb_push, rtrb_pop)
        })
    });
    g.bench_function("ringbuf", |b| {
        b.iter_custom(|iters| {
            pingpong(
                iters,
                ringbuf_split(N),
                ringbuf_split(N),
                ringbuf_push,
                ringbuf_pop,
            )
        })
    });
    g.bench_function("heapless", |b| {
        b.iter_custom(|iters| {
            let (mut q1, mut q2) = (
                Box::new(HeaplessQueue::<N>::new()),
                Box::new(HeaplessQueue::<N>::new()),
            );
            pingpong(iters, q1.split(), q2.split(), heapless_push, heapless_pop)
        })
    });
    g.bench_function("nexus_queue", |b| {
        b.iter_custom(|iters| {
            let (a, b) = (
                nexus_queue::spsc::ring_buffer(N),
                nexus_queue::spsc::ring_buffer(N),
            );
            pingpong(iters, a, b, nexus_push, nexus_pop)
        })
    });
    g.bench_function("crossbeam_arrayqueue", |b| {
        b.iter_custom(|iters| {
            let (q1, q2) = (ArrayQueue::new(N), ArrayQueue::new(N));
            pingpong(
                iters,
                (&q1, &q1),
                (&q2, &q2),
                arrayqueue_push,
                arrayqueue_pop,
            )
        })
    });
    g.finish();
}
