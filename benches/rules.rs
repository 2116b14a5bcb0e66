//! Every check for every pair on a 30-vs-30 table over the demo terrain.
//!
//! Two battle lines of 30 blocks each face each other across the middle of the
//! Aldermoor Valley map, close enough that most pairs are within sight range and many
//! within a field of fire: the expensive case for a table at the height of a battle.
//! Goal (issue 2): the whole table under 2 ms on one core.

mod common;

use aide::rules::for_scenario;
use common::thirty_a_side;
use criterion::{Criterion, criterion_group, criterion_main};

fn bench_rules(c: &mut Criterion) {
    let (scenario, table) = thirty_a_side();
    let rules = for_scenario(&scenario);
    c.bench_function("check_table 30 vs 30, demo terrain", |b| {
        b.iter(|| rules.check_table(&scenario, std::hint::black_box(&table)))
    });
}

criterion_group!(benches, bench_rules);
criterion_main!(benches);
