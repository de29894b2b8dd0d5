//! `--real`: the stand on OS threads.

pub fn main() {
    println!("--real: not yet");
}
