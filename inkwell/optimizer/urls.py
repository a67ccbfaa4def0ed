"""Mounted at /api/v1/optimizer/ (inkwell/api/urls.py): ``analyze/``, ``optimize/`` and ``batch_optimize/``."""

from rest_framework.routers import SimpleRouter

from inkwell.optimizer import views

router = SimpleRouter()
router.register("", views.OptimizerViewSet, basename="optimizer")

urlpatterns = router.urls
