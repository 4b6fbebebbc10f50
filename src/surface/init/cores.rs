//! Spreading `init`'s per-file work over the machine's cores.
//!
//! Files cost very different amounts of work (a 32 KiB CUDA kernel is
//! scanned for every op's computation, a README is skipped by its
//! extension), and the costly ones cluster in directories, so cutting the
//! sorted path list into one contiguous half per core leaves one core
//! waiting on the other. The items are cut instead into many small batches
//! that the cores take in turn from a shared counter, as OpenMP's
//! `schedule(dynamic)` does; the batches' results come back in item order,
//! so the draft does not depend on which core ran what.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Batches per core: enough that the last batch taken is a small share of
/// a core's work, few enough that per-batch setup (a prefix buffer, a
/// confined root) is nothing.
const BATCHES_PER_CORE: usize = 16;

/// Run `work` on the items, cut into batches spread over the cores (at most
/// 8), and return the batches' results in item order.
pub(super) fn on_cores<T: Sync, R: Send>(items: &[T], work: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    on_threads(items, cores, work)
}

/// [`on_cores`] with the number of threads given.
fn on_threads<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    if items.is_empty() {
        return Vec::new();
    }
    if threads <= 1 {
        return vec![work(items)];
    }
    let batch = items.len().div_ceil(threads * BATCHES_PER_CORE).max(1);
    let batches: Vec<&[T]> = items.chunks(batch).collect();
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let (work, batches, next) = (&work, &batches, &next);
        let workers: Vec<_> = (0..threads.min(batches.len()))
            .map(|_| {
                s.spawn(move || {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(part) = batches.get(i) else {
                            return out;
                        };
                        out.push((i, work(part)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("init worker thread"))
            .collect()
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::on_threads;

    #[test]
    fn every_item_is_worked_once_and_the_results_keep_item_order() {
        for threads in 1..=8 {
            for len in [0, 1, 2, 7, 31, 32, 33, 129, 1000] {
                let items: Vec<usize> = (0..len).collect();
                let parts = on_threads(&items, threads, |part| {
                    part.iter().map(|i| i * 3).collect::<Vec<_>>()
                });
                let flat: Vec<usize> = parts.into_iter().flatten().collect();
                let expected: Vec<usize> = (0..len).map(|i| i * 3).collect();
                assert_eq!(flat, expected, "{threads} threads, {len} items");
            }
        }
    }

    #[test]
    fn a_costly_stretch_of_items_is_shared_between_threads() {
        // The first half of the items is the costly one. Cut into one half
        // per thread, a single thread would take all of it; each costly
        // batch here waits (up to 5 s) until some other thread has started
        // a costly batch too.
        use std::sync::atomic::{AtomicUsize, Ordering};
        let items: Vec<usize> = (0..64).collect();
        let costly_started = AtomicUsize::new(0);
        let parts = on_threads(&items, 2, |part| {
            if part[0] < 32 {
                costly_started.fetch_add(1, Ordering::SeqCst);
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
                while costly_started.load(Ordering::SeqCst) < 2
                    && std::time::Instant::now() < deadline
                {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            (part[0], std::thread::current().id())
        });
        let costly: std::collections::HashSet<_> = parts
            .iter()
            .filter(|(first, _)| *first < 32)
            .map(|(_, id)| *id)
            .collect();
        assert_eq!(
            costly.len(),
            2,
            "both threads took batches of the costly half"
        );
    }
}
