extension Duration {
    /// This duration in seconds, as a floating-point number (for backoff arithmetic and date offsets).
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
