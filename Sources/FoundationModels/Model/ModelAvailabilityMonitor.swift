import Dispatch
import Synchronization

/// Tells the observers of a ``SystemLanguageModel``'s ``SystemLanguageModel/availability`` when its model file
/// comes or goes, as Apple's model tells a view when its assets finish downloading.
///
/// A model whose availability was read is followed, weakly, until its availability changes: its file is looked
/// at once a second, so an install by `fm model install` in another process is seen within that second, and at
/// once after an install or removal in this process (``ModelInstaller``). A change is told once; an observer
/// that reads the availability again, as `withObservationTracking` has it do, is told of the next one. The clock
/// stops while no model is followed.
final class ModelAvailabilityMonitor: Sendable {
    /// The process's monitor: one clock for every model.
    static let shared = ModelAvailabilityMonitor()

    /// How often the followed models' files are looked at.
    static let interval = DispatchTimeInterval.seconds(1)

    private struct Followed {
        weak var model: SystemLanguageModel?
        let available: Bool
    }

    private struct State {
        var followed: [ObjectIdentifier: Followed] = [:]
        var timer: (any DispatchSourceTimer)?
    }

    private let state = Mutex(State())
    /// Where the files are looked at: off Swift's cooperative pool, since opening a file blocks.
    private let queue = DispatchQueue(label: "foundation-models.availability")

    /// Follows `model`, whose availability was just read as `available`, unless it is followed already.
    ///
    /// A model followed with the other value changed since the last look, and may change back before the next,
    /// which would then see nothing to tell: its observers are told now, and the new value is the one followed.
    func follow(_ model: SystemLanguageModel, available: Bool) {
        let id = ObjectIdentifier(model)
        let stale = state.withLock { state -> Bool in
            if let followed = state.followed[id], followed.model != nil {
                guard followed.available != available else { return false }
                state.followed[id] = Followed(model: model, available: available)
                return true
            }
            state.followed[id] = Followed(model: model, available: available)
            guard state.timer == nil else { return false }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
            timer.setEventHandler { [weak self] in self?.check() }
            timer.resume()
            state.timer = timer
            return false
        }
        if stale { queue.async { model.availabilityChanged() } }
    }

    /// Looks at the followed models' files now (after an install or removal in this process).
    func filesChanged() {
        queue.async { self.check() }
    }

    /// Tells the observers of each model whose availability changed and stops following it (and models gone);
    /// stops the clock when none is left. Runs on ``queue``.
    private func check() {
        let followed = state.withLock { state in
            state.followed.compactMap { id, followed in followed.model.map { (id, $0, followed.available) } }
        }
        let changed = followed.filter { _, model, available in (model.currentAvailability == .available) != available }
        state.withLock { state in
            state.followed = state.followed.filter { $0.value.model != nil }
            for (id, _, _) in changed { state.followed[id] = nil }
            if state.followed.isEmpty, let timer = state.timer {
                timer.cancel()
                state.timer = nil
            }
        }
        for (_, model, _) in changed { model.availabilityChanged() }
    }
}
