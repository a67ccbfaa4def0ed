"""The console's routes (``/app/``). Every route that names an object is in the console's
cross-account matrix (inkwell/console/tests/test_console_matrix.py), found from this list."""

from django.urls import path

from inkwell.console.views import activity, auth, calendar, cms, library, planner, sites, writer

app_name = "console"

urlpatterns = [
    path("", sites.HomeView.as_view(), name="home"),
    path("signin/", auth.SignInView.as_view(), name="signin"),
    path("signup/", auth.SignUpView.as_view(), name="signup"),
    path("signout/", auth.SignOutView.as_view(), name="signout"),
    path("password-reset/", auth.PasswordResetView.as_view(), name="password-reset"),
    path("password-reset/<str:uid>/<str:token>/", auth.PasswordResetConfirmView.as_view(), name="password-reset-confirm"),
    path("sites/new/", sites.SiteNewView.as_view(), name="site-new"),
    path("sites/<int:site_id>/sectors/", sites.SiteSectorsView.as_view(), name="site-sectors"),
    path("sites/<int:site_id>/library/", library.LibraryView.as_view(), name="library"),
    path("sites/<int:site_id>/library/review/", library.LibraryReviewView.as_view(), name="library-review"),
    path("sites/<int:site_id>/library/add/", library.LibraryAddView.as_view(), name="library-add"),
    path("sites/<int:site_id>/keywords/", planner.KeywordsView.as_view(), name="keywords"),
    path("sites/<int:site_id>/keywords/bulk/", planner.KeywordsBulkView.as_view(), name="keywords-bulk"),
    path("sites/<int:site_id>/keywords/cluster/", planner.AutoClusterView.as_view(), name="auto-cluster"),
    path("sites/<int:site_id>/clusters/", planner.ClustersView.as_view(), name="clusters"),
    path("sites/<int:site_id>/clusters/ideas/", planner.GenerateIdeasView.as_view(), name="generate-ideas"),
    path("sites/<int:site_id>/ideas/", planner.IdeasView.as_view(), name="ideas"),
    path("sites/<int:site_id>/ideas/tasks/", planner.CreateTasksView.as_view(), name="create-tasks"),
    path("sites/<int:site_id>/tasks/", writer.TasksView.as_view(), name="tasks"),
    path("sites/<int:site_id>/content/", writer.ContentListView.as_view(), name="content-list"),
    path("sites/<int:site_id>/calendar/", calendar.CalendarView.as_view(), name="calendar"),
    path("sites/<int:site_id>/cms/", cms.CmsView.as_view(), name="cms"),
    path("clusters/<int:pk>/", planner.ClusterView.as_view(), name="cluster"),
    path("tasks/<int:pk>/generate/", writer.GenerateDraftView.as_view(), name="generate-draft"),
    path("content/<int:pk>/", writer.ContentEditorView.as_view(), name="content"),
    path("content/<int:pk>/status/", writer.ContentStatusView.as_view(), name="content-status"),
    path("content/<int:pk>/images/", writer.GenerateImagesView.as_view(), name="generate-images"),
    path("content/<int:pk>/optimize/", writer.OptimizeView.as_view(), name="optimize"),
    path("content/<int:pk>/link/", writer.LinkView.as_view(), name="link"),
    path("content/<int:pk>/revisions/", writer.RevisionsView.as_view(), name="revisions"),
    path("content/<int:pk>/schedule/", calendar.ScheduleView.as_view(), name="content-schedule"),
    path("content/<int:pk>/unschedule/", calendar.UnscheduleView.as_view(), name="content-unschedule"),
    path("content/<int:pk>/publish/", calendar.PublishNowView.as_view(), name="content-publish"),
    path("integrations/<int:pk>/credentials/", cms.CmsCredentialsView.as_view(), name="cms-credentials"),
    path("integrations/<int:pk>/test/", cms.CmsTestView.as_view(), name="cms-test"),
    path("integrations/<int:pk>/structure/", cms.CmsStructureView.as_view(), name="cms-structure"),
    path("integrations/<int:pk>/sync/", cms.CmsSyncView.as_view(), name="cms-sync"),
    path("integrations/<int:pk>/webhook/", cms.CmsWebhookView.as_view(), name="cms-webhook"),
    path("images/<int:pk>/regenerate/", writer.RegenerateImageView.as_view(), name="regenerate-image"),
    path("images/<int:pk>/alt-text/", writer.ImageAltTextView.as_view(), name="image-alt-text"),
    path("jobs/<int:pk>/", activity.JobView.as_view(), name="job"),
    path("notifications/", activity.NotificationsView.as_view(), name="notifications"),
    path("notifications/bell/", activity.BellView.as_view(), name="bell"),
    path("notifications/read-all/", activity.NotificationsReadAllView.as_view(), name="notifications-read-all"),
    path("notifications/<int:pk>/read/", activity.NotificationReadView.as_view(), name="notification-read"),
]
