//! One property test per verilated variant; see `rdmagen_csr_tests::bench::check`.
//!
//! `RDMAGEN_CSR_CASES` sets the number of random cases per variant (default 400).

use rdmagen_csr_tests::bench::check;
use rdmagen_csr_tests::*;

fn cases() -> u32 {
    std::env::var("RDMAGEN_CSR_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

macro_rules! variants {
    ($($test:ident => $model:ty),* $(,)?) => {$(
        #[test]
        fn $test() {
            check::<$model>(stringify!($test), cases());
        }
    )*};
}

variants! {
    example_sync_p4 => ExampleSyncP4,
    example_async_p1 => ExampleAsyncP1,
    example_async_p8 => ExampleAsyncP8,
    qpc_sync => QpcSync,
    qpc_async => QpcAsync,
    rx_parser_sync => RxParserSync,
    dcqcn_async => DcqcnAsync,
    uar_sync_vf4 => UarSyncVf4,
    uar_mlx5_async_vf2 => UarMlx5AsyncVf2,
}
