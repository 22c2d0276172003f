use engine::shogi::{Position, perft};
fn main() {
    let d: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let mut p = Position::startpos();
    let t = std::time::Instant::now();
    let n = perft(&mut p, d);
    let e = t.elapsed().as_secs_f64();
    println!("{n} {e:.3}s {:.1} Mnps", n as f64 / e / 1e6);
}
