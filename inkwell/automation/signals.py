from django.dispatch import Signal

# Sent by the engine after each step of a run is counted (its transaction committed or, inside an
# outer one, written): ``run`` (the AutomationRun as the engine knows it), ``stage`` (number),
# ``processed`` and ``failed`` (item ids). Receivers may pause or cancel the run; the engine sees
# it before its next item.
step_finished = Signal()
