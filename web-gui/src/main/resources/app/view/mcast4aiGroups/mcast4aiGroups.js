// mcast4ai groups view: a read-only table of P2MP groups.
// The table builder sends mcast4aiGroupDataRequest and reads the rows from
// mcast4aiGroups of mcast4aiGroupDataResponse (GroupTableMessageHandler).
// A selected group opens on the topology view with the mcast4ai overlay showing its tree.
(function () {
    'use strict';

    angular.module('ovMcast4aiGroups', [])
        .controller('OvMcast4aiGroupsCtrl',
        ['$log', '$scope', 'TableBuilderService', 'NavService',

            function ($log, $scope, tbs, ns) {
                $scope.topoTip = 'Show the selected group\'s tree on the topology view';

                tbs.buildTable({
                    scope: $scope,
                    tag: 'mcast4aiGroup'
                });

                $scope.showOnTopo = function () {
                    if ($scope.selId !== null && $scope.selId !== undefined) {
                        ns.navTo('topo', { overlayId: 'mcast4ai-overlay', group: String($scope.selId) });
                    }
                };

                $scope.$on('$destroy', function () {
                    $log.log('OvMcast4aiGroupsCtrl has been destroyed');
                });

                $log.log('OvMcast4aiGroupsCtrl has been created');
            }]);
}());
