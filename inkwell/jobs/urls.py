from rest_framework.routers import SimpleRouter

from inkwell.jobs import views

router = SimpleRouter()
router.register("", views.JobViewSet, basename="job")

urlpatterns = router.urls
