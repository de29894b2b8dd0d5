//! The level at the band's edges, shared by `tests/watermark_cs.rs`,
//! `tests/watermark_burst.rs` and `tests/watermark_mpmc.rs`: for every pair
//! of marks on a ring of 8, up to `high - 1` items the level stays
//! `Normal`; the push that leaves `high` raises it; filling to `N` and
//! evicting keep it `High` with no new transition; pops down to `low + 1`
//! keep it `High`; the pop that leaves `low` lowers it; `clear` leaves it
//! `Normal`; two transitions a round. The including file calls
//! `band_edges_test!(RingType)` with a ring of 8 `u32` slots and marks, and
//! has `Level` in scope.

macro_rules! band_edges_test {
    ($ring:ty) => {
        #[test]
        fn band_edges_every_pair_of_marks() {
            for high in 1..=8 {
                for low in 0..high {
                    let ring: $ring = <$ring>::with_watermarks(low, high);
                    assert_eq!(ring.watermarks(), (low, high));
                    for round in 0..3 {
                        for i in 0..high {
                            assert_eq!(ring.level(), Level::Normal, "low {low} high {high} at {i}");
                            ring.try_push(i as u32).unwrap();
                        }
                        assert_eq!(ring.level(), Level::High, "low {low} high {high}");
                        while ring.try_push(0).is_ok() {}
                        let _ = ring.push_overwrite(0);
                        assert_eq!(ring.level(), Level::High);
                        while ring.len() > low + 1 {
                            ring.try_pop().unwrap();
                            assert_eq!(ring.level(), Level::High, "low {low} high {high}");
                        }
                        ring.try_pop().unwrap();
                        assert_eq!(ring.level(), Level::Normal, "low {low} high {high}");
                        assert_eq!(ring.len(), low);
                        ring.clear();
                        assert_eq!(ring.level(), Level::Normal, "round {round}");
                        assert_eq!(ring.stats().transitions, 2 * (round + 1));
                    }
                }
            }
        }
    };
}
