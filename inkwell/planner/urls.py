from rest_framework.routers import SimpleRouter

from inkwell.planner import views

router = SimpleRouter()
router.register("keywords", views.KeywordViewSet, basename="planner-keyword")
router.register("clusters", views.ClusterViewSet, basename="planner-cluster")
router.register("ideas", views.IdeaViewSet, basename="planner-idea")

urlpatterns = router.urls
