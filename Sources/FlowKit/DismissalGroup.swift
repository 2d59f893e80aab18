/// Collects dismissal outcomes of one unwinding and completes once sealed and all are in.
final class DismissalGroup {
    private var pending = 0
    private var sealed = false
    private var entries: [DismissalReport.Entry] = []
    private var positions: [ScreenID: Int] = [:]
    private var completion: ((DismissalReport) -> Void)?

    init(completion: ((DismissalReport) -> Void)?) { self.completion = completion }

    func expect(_ screen: ScreenID) {
        pending += 1
        positions[screen] = entries.count
        entries.append(.init(screen: screen, outcome: .timedOut))
    }

    func resolve(_ screen: ScreenID, _ outcome: DismissOutcome) {
        guard let position = positions.removeValue(forKey: screen) else { return }
        entries[position].outcome = outcome
        pending -= 1
        fireIfDone()
    }

    func seal() {
        sealed = true
        fireIfDone()
    }

    private func fireIfDone() {
        guard sealed, pending == 0, let completion else { return }
        self.completion = nil
        completion(DismissalReport(outcomes: entries))
    }
}
