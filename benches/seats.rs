//! The cost of fog of war per table update: on a 30-vs-30 table over the demo terrain,
//! each seat's view (who is spotted, in contact, hidden) and its serialised "state"
//! message, as the hub builds them for every new table ([`aide::web::hub::snapshot`]).
//! The umpire's message alone is what an open table sends; a seated table sends four
//! (umpire, spectator, red, blue).

mod common;

use aide::rules::for_scenario;
use aide::seat::view::SeatView;
use aide::seat::{Seat, slots};
use aide::web::feed::{Publisher, Source};
use aide::web::hub::{state_message, status};
use criterion::{Criterion, criterion_group, criterion_main};

fn bench_seats(c: &mut Criterion) {
    let (scenario, table) = common::thirty_a_side();
    let report = for_scenario(&scenario).check_table(&scenario, &table);
    let (_publisher, feed) = Publisher::new(table.clone(), Source::Replay);
    let feed = feed.borrow().clone();
    let status = status(&feed, 20);
    let message = |seat: &Seat| {
        let view = SeatView::new(&scenario, &table, &report, seat.clone());
        state_message(&scenario, &view, &table, &report, &feed, &status)
    };
    c.bench_function("state message, umpire only (open table), 30 vs 30", |b| {
        b.iter(|| message(std::hint::black_box(&Seat::Umpire)))
    });
    let seats = slots(&scenario);
    c.bench_function("state messages, every seat (4), 30 vs 30", |b| {
        b.iter(|| {
            seats
                .iter()
                .map(|s| message(std::hint::black_box(s)).len())
                .sum::<usize>()
        })
    });
    c.bench_function("one side's view and message, 30 vs 30", |b| {
        b.iter(|| message(std::hint::black_box(&Seat::Side("blue".into()))))
    });
}

criterion_group!(benches, bench_seats);
criterion_main!(benches);
