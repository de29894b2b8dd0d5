//! The SVG plot.
use std::path::Path;

use crate::sim::{Run, Scenario, Window};
use crate::Row;

pub fn write(
    _out: &Path,
    _loads: &[u64],
    _rows: &[Row],
    _sweep: &[Vec<Window>],
    _base: &Scenario,
    _slow: &[Run],
    _slow_rows: &[Row],
) -> Result<(), Box<dyn std::error::Error>> {
    Ok(())
}
