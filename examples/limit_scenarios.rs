//! The limiter scenario suite: every limiter in every scenario.
//!
//! ```text
//! cargo run --release --example limit_scenarios                  # every scenario
//! cargo run --release --example limit_scenarios -- spread exp    # names containing "spread" or "exp"
//! cargo run --release --example limit_scenarios -- --markdown    # tables for BENCHMARKS.md
//! cargo run --release --example limit_scenarios -- --goals       # issue #13's goals per crate row
//! ```
//!
//! The model and the anchors are described in `tests/scenarios/mod.rs`.

#[path = "../tests/scenarios/mod.rs"]
mod scenarios;

use scenarios::{catalogue, crate_limiters, goals, rows, table};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let markdown = args.iter().any(|a| a == "--markdown");
    let want_goals = args.iter().any(|a| a == "--goals");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let start = Instant::now();

    if want_goals {
        for row in crate_limiters::crate_rows() {
            println!("{}", row.name);
            for g in goals::all(&row) {
                println!("  [{}] {}", if g.pass { "pass" } else { "FAIL" }, g.name);
                for line in &g.detail {
                    println!("        {line}");
                }
            }
        }
        eprintln!("goals in {:.1} s", start.elapsed().as_secs_f64());
        return;
    }

    let rows = rows();
    for sc in catalogue::catalogue() {
        if !names.is_empty() && !names.iter().any(|n| sc.name.contains(n.as_str())) {
            continue;
        }
        let reports: Vec<_> = rows.iter().map(|r| (r.run)(&sc)).collect();
        println!("{}", table::scenario_table(&sc, &reports, markdown));
    }
    eprintln!("table in {:.1} s", start.elapsed().as_secs_f64());
}
