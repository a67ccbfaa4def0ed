"""Mounted at /api/v1/linker/ (inkwell/api/urls.py): ``process/`` and ``batch_process/``."""

from rest_framework.routers import SimpleRouter

from inkwell.linker import views

router = SimpleRouter()
router.register("", views.LinkerViewSet, basename="linker")

urlpatterns = router.urls
